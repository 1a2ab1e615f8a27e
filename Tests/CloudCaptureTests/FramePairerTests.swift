import CloudCapture
import XCTest

final class FramePairerTests: XCTestCase {
    // The Kinect's 60 MHz clock at 30 fps: 2,000,000 ticks a frame, pairs within 1,000,000.
    func testPairsEachDepthWithTheNearestColorWithinHalfAFrame() {
        var pairer = FramePairer<String, String>(clock: .kinectTicks)
        XCTAssertEqual(pairer.tolerance, 1_000_000)
        XCTAssertNil(pairer.add(depth: "d0", stamp: 10_000_000))
        let first = pairer.add(color: "c0", stamp: 10_120_000)
        XCTAssertEqual(first?.depth, "d0")
        XCTAssertEqual(first?.color, "c0")
        XCTAssertEqual(first?.stamp, 10_000_000)
        // Two colors arrive before the next depth: the nearer one is its partner, the older one stale.
        XCTAssertNil(pairer.add(color: "c1", stamp: 11_900_000))
        XCTAssertNil(pairer.add(color: "c2", stamp: 13_950_000))
        let second = pairer.add(depth: "d2", stamp: 14_000_000)
        XCTAssertEqual(second?.color, "c2")
        XCTAssertEqual(pairer.unpaired, 1)
    }

    func testFramesFurtherApartThanHalfAFrameAreNotPaired() {
        var pairer = FramePairer<Int, Int>(clock: .kinectTicks)
        XCTAssertNil(pairer.add(depth: 0, stamp: 5_000_000))
        XCTAssertNil(pairer.add(color: 0, stamp: 6_000_001))
        XCTAssertNotNil(pairer.add(depth: 1, stamp: 7_000_000))
    }

    /// The Kinect's counter wraps every 71.6 s; frames either side of the wrap still pair.
    func testKinectStampsPairAcrossTheCounterWrap() {
        var pairer = FramePairer<Int, Int>(clock: .kinectTicks)
        XCTAssertNil(pairer.add(depth: 1, stamp: UInt64(UInt32.max) - 50_000))
        XCTAssertEqual(pairer.add(color: 2, stamp: 70_000)?.depth, 1)
        XCTAssertEqual(DeviceClock.kinectTicks.distance(10, UInt64(UInt32.max)), 11)
        XCTAssertEqual(DeviceClock.microseconds.distance(10, 40), 30)
    }

    /// A stream that never finds a partner keeps only a few frames waiting.
    func testUnpairedFramesAreBounded() {
        var pairer = FramePairer<Int, Int>(clock: .microseconds)
        for i in 0..<100 { XCTAssertNil(pairer.add(depth: i, stamp: UInt64(i) * 33_333)) }
        XCTAssertEqual(pairer.unpaired, 96)
        // The newest waiting depth frame still pairs.
        XCTAssertEqual(pairer.add(color: 0, stamp: 99 * 33_333 + 100)?.depth, 99)
    }
}
