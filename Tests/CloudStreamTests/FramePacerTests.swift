import CloudStream
import XCTest

/// The schedule both stream feeders keep, on a clock the test sets.
final class FramePacerTests: XCTestCase {
    func testAFixedRateCountsFromTheFirstFrameWhileFramesComeInTime() {
        var pacer = FramePacer(.fixed(10))
        XCTAssertEqual(pacer.departure(timestamp: 0, now: 100), 100)
        XCTAssertEqual(pacer.departure(timestamp: 0, now: 100.01)!, 100.1, accuracy: 1e-9)
        XCTAssertEqual(pacer.departure(timestamp: 0, now: 100.12)!, 100.2, accuracy: 1e-9)
    }

    func testALateFrameLeavesAtOnceAndTheNextOneIntervalAfterIt() {
        var pacer = FramePacer(.fixed(10))
        _ = pacer.departure(timestamp: 0, now: 0)
        // Due at 0.1 but ready only at 0.75: no burst of the frames due at 0.2 ... 0.7 follows.
        XCTAssertEqual(pacer.departure(timestamp: 0, now: 0.75), 0.75)
        XCTAssertEqual(pacer.departure(timestamp: 0, now: 0.76)!, 0.85, accuracy: 1e-9)
    }

    func testTimestampsSetTheGapsExceptImpossibleOnes() {
        var pacer = FramePacer(.timestamps, fallbackInterval: 0.05)
        XCTAssertEqual(pacer.departure(timestamp: 7.0, now: 0), 0)
        XCTAssertEqual(pacer.departure(timestamp: 7.2, now: 0)!, 0.2, accuracy: 1e-9)
        // A recording that starts again (its clock goes back) and one that pauses for a minute
        // are played on at the fallback rate.
        XCTAssertEqual(pacer.departure(timestamp: 0.0, now: 0)!, 0.25, accuracy: 1e-9)
        XCTAssertEqual(pacer.departure(timestamp: 60.0, now: 0)!, 0.30, accuracy: 1e-9)
        XCTAssertEqual(pacer.departure(timestamp: 60.1, now: 0)!, 0.40, accuracy: 1e-9)
    }

    func testFastestNeverWaitsAndRestartSendsTheNextFrameAtOnce() {
        var fastest = FramePacer(.fastest)
        XCTAssertNil(fastest.departure(timestamp: 0, now: 5))
        XCTAssertNil(fastest.departure(timestamp: 1, now: 5))
        var paced = FramePacer(.fixed(2))
        _ = paced.departure(timestamp: 0, now: 0)
        _ = paced.departure(timestamp: 0, now: 0)
        paced.restart()
        XCTAssertEqual(paced.departure(timestamp: 0, now: 0.6), 0.6)
        XCTAssertEqual(paced.departure(timestamp: 0, now: 0.6)!, 1.1, accuracy: 1e-9)
    }
}
