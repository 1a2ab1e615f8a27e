import CloudCapture
import CloudCore
import CloudMeasure
import CloudPCL
import CloudPipeline
import XCTest

@testable import CloudMeasure

/// Frames whose recorded poses drift are moved back onto the planes they share. The scans are
/// the simulated camera's fused captures of a 5 x 4 x 2.6 m room (path=scan: floor, walls and
/// ceiling in turn), whose poses are exact; drift is added to them here, so the truth is known.
final class PoseRefinementTests: XCTestCase {
    static let spec = "synthetic:room=5x4x2.6,path=scan,frames=48,color=32x24"

    func capture() throws -> RoomScan {
        let collector = CloudCollector()
        var pipeline = CapturePipeline(
            source: try SourceSpec(parsing: Self.spec), sourceOptions: SourceOptions(), frame: .world, frameLimit: nil, fuse: true,
            outputs: [],
            filters: FilterPipeline(steps: [], organized: false), observer: SilentObserver())
        pipeline.collector = collector
        _ = try pipeline.run()
        return try XCTUnwrap(RoomScan.collected(collector, name: "room"))
    }

    /// A tracker's drift: a random walk of rigid errors, each turning about its frame's camera,
    /// of about 0.15° and 3 mm a frame (the first frame exact), as in the independent sweep.
    func drift(_ scan: RoomScan, seed: UInt64) -> [Pose] {
        var random = SplitMix64(seed: seed)
        var rotation = SIMD3<Double>.zero
        var translation = SIMD3<Double>.zero
        let step = (rotation: 0.15 * Double.pi / 180 / 3.0.squareRoot(), translation: 0.003 / 3.0.squareRoot())
        return scan.cameras.enumerated().map { k, camera in
            if k > 0 {
                rotation += step.rotation * SIMD3(random.gaussian(), random.gaussian(), random.gaussian())
                translation += step.translation * SIMD3(random.gaussian(), random.gaussian(), random.gaussian())
            }
            let turn = Pose(rows: rotationRows(rotation), translation: .zero)
            let c = camera.translation
            return Pose(rows: turn.rotation, translation: c + translation - turn.apply(c))
        }
    }

    /// How far apart the frames' errors put the room's middle: the root mean square distance of
    /// each error's image of it from their mean. Errors that are one rigid motion for every frame
    /// (the room's placement, which no plane observes) give 0.
    func spread(_ errors: [Pose], around middle: SIMD3<Double>) -> Double {
        let moved = errors.map { $0.apply(middle) }
        let mean = moved.reduce(.zero, +) / Double(moved.count)
        return (moved.map { (($0 - mean) * ($0 - mean)).sum() }.reduce(0, +) / Double(moved.count)).squareRoot()
    }

    func corrections(_ scan: RoomScan) throws -> PoseRefinement.Result? {
        let set = try WorkingSet(scan, settings: MeasureSettings())
        let surfaces = try RoomSurfaces.find(scan, set: set, settings: MeasureSettings())
        return PoseRefinement.corrections(scan, set: set, surfaces: surfaces)
    }

    /// The corrected frames agree with each other better than the drifted ones did: after
    /// correction, the frames' remaining errors are closer to one rigid motion, by at least half.
    func testDriftedFramesAreMovedBack() throws {
        let exact = try capture()
        let drifts = drift(exact, seed: 5)
        let result = try XCTUnwrap(try corrections(exact.moved(by: drifts)), "drift is seen")
        let middle = exact.cameras.map(\.translation).reduce(.zero, +) / Double(exact.cameras.count) + SIMD3(0, 0, 0.5)
        let before = spread(drifts, around: middle)
        let after = spread(zip(result.corrections, drifts).map { $0.after($1) }, around: middle)
        XCTAssertGreaterThan(before, 0.004, "the drift moves the frames apart")
        XCTAssertLessThan(after, before / 2, "before \(before), after \(after)")
    }

    /// Frames that agree are not moved: the exact capture's copies of each plane disagree by no
    /// more than their noise.
    func testExactFramesAreNotMoved() throws {
        XCTAssertNil(try corrections(capture()))
    }

    /// Measured through the corrected poses, the drifted room's height and wall lengths are
    /// within the 1 cm of the truth, and within two of their sigmas.
    func testDriftedRoomMeasuresTrue() throws {
        let exact = try capture()
        let report = try RoomMeasurer.measure(exact.moved(by: drift(exact, seed: 5))).report
        let height = try XCTUnwrap(report.height)
        XCTAssertEqual(height.value, 2.6, accuracy: 0.01)
        XCTAssertLessThanOrEqual(abs(height.value - 2.6), 2 * height.sigma)
        let lengths = report.walls.compactMap(\.length)
        XCTAssertGreaterThanOrEqual(lengths.count, 4)
        for length in lengths {
            let truth = abs(length.value - 5) < abs(length.value - 4) ? 5.0 : 4.0
            XCTAssertEqual(length.value, truth, accuracy: 0.01, "\(length)")
            XCTAssertLessThanOrEqual(abs(length.value - truth), 2 * length.sigma, "\(length)")
        }
    }
}
