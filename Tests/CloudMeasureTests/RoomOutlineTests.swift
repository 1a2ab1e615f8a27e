import XCTest

@testable import CloudMeasure

/// Which walls meet at a corner, on the plan of a 4 x 3 m room whose wall lines are exact.
final class RoomOutlineTests: XCTestCase {
    /// The room's walls counter-clockwise (the room on each line's left), each seen from 10 cm
    /// after its start corner to 10 cm before its end corner; `bottomEnd` is where the first
    /// wall's points end along it (its corner is at 4).
    func traces(bottomEnd: Double) -> [RoomOutline.Trace] {
        [
            RoomOutline.Trace(line: PlanLine(normal: SIMD2(0, 1), offset: 0), start: 0.1, end: bottomEnd),
            RoomOutline.Trace(line: PlanLine(normal: SIMD2(-1, 0), offset: 4), start: 0.1, end: 2.9),
            RoomOutline.Trace(line: PlanLine(normal: SIMD2(0, -1), offset: 3), start: -3.9, end: -0.1),
            RoomOutline.Trace(line: PlanLine(normal: SIMD2(1, 0), offset: 0), start: -2.9, end: -0.1)
        ]
    }

    func testWallsMeetWhereTheyEndOrStopShort() {
        for end in [3.9, 4.3, 2.6] {
            let outline = RoomOutline(traces(bottomEnd: end), maxGap: 1.5, maxOverrun: 0.5)
            XCTAssertTrue(outline.isClosed, "bottom wall's points ending at \(end)")
            XCTAssertEqual(outline.next[0], 1)
        }
    }

    /// A wall whose points run on a metre past the crossing with a plane not seen to stand to
    /// the ceiling (a bookshelf's side) does not end there: the outline stays open rather than
    /// close through it. Past a full-height wall it may run on (into a corridor beyond a doorway).
    func testAWallRunningOnPastTheCrossingMeetsOnlyAFullHeightWallThere() {
        var traces = traces(bottomEnd: 5.0)
        let outline = RoomOutline(traces, maxGap: 1.5, maxOverrun: 0.5)
        XCTAssertNil(outline.next[0])
        XCTAssertNil(outline.previous[1])
        XCTAssertFalse(outline.isClosed)
        traces[1].fullHeight = true
        XCTAssertEqual(RoomOutline(traces, maxGap: 1.5, maxOverrun: 0.5).next[0], 1)
    }
}
