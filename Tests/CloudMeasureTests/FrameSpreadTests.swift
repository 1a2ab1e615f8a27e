import CloudCapture
import CloudCore
import CloudMeasure
import CloudPCL
import CloudPipeline
import XCTest

@testable import CloudMeasure

/// How far the frames that saw a plane disagree on it, on a 2 x 2 m level plane seen whole by
/// each of four frames whose copies of it lie at known heights.
final class FrameSpreadTests: XCTestCase {
    /// The plane z = 0 as four frames' copies, frame k's at `heights[k]`, each point with 5 mm of
    /// independent noise; its spread from the scan's frame-tagged points.
    func spread(_ heights: [Double], tagged: Bool = true) throws -> Double {
        var random = SplitMix64(seed: 11)
        var positions: [Float] = []
        var starts: [Int] = []
        for height in heights {
            starts.append(positions.count / 3)
            for i in 0..<100 {
                for j in 0..<100 {
                    positions += [Float(Double(i) * 0.02), Float(Double(j) * 0.02), Float(height + 0.005 * random.gaussian())]
                }
            }
        }
        let cameras = heights.indices.map { k in
            Pose.lookAt(eye: SIMD3(Double(k) * 0.5, 0.2, 1.5), target: SIMD3(1, 1, 0))
        }
        let scan = RoomScan(
            name: "plane", cloud: PointCloud(positions: positions), cameras: cameras, sourceUp: SIMD3(0, 0, 1),
            frameStarts: tagged ? starts : nil)
        let set = try WorkingSet(scan, settings: MeasureSettings())
        let fitted = FittedPlane(
            plane: Plane(normal: SIMD3(0, 0, 1), offset: 0), inliers: (0..<set.count).map(UInt32.init), distance: 0.03, rms: 0.005)
        return FrameSpread.of(fitted, set: set)
    }

    /// Copies 3 and 1 mm either side of the plane: their spread is their standard deviation,
    /// 2.6 mm, although the voxel grid averages the four copies into one.
    func testDisagreeingFramesSpread() throws {
        XCTAssertEqual(try spread([0.003, -0.003, 0.001, -0.001]), 0.00258, accuracy: 0.0003)
    }

    /// Frames that agree scatter only by their points' noise, which is not disagreement.
    func testAgreeingFramesDoNotSpread() throws {
        XCTAssertLessThan(try spread([0, 0, 0, 0]), 0.0003)
    }

    /// Without frames per point (a cloud file) nothing tells the copies apart.
    func testUntaggedPointsTellNothing() throws {
        XCTAssertEqual(try spread([0.003, -0.003, 0.001, -0.001], tagged: false), 0)
    }

    /// A fused capture says where each frame's points begin: every point of frame k lies in
    /// front of camera k.
    func testFusedCaptureKeepsEachPointsFrame() throws {
        let collector = CloudCollector()
        var pipeline = CapturePipeline(
            source: try SourceSpec(parsing: "synthetic:room=4x3x2.5,noise=0,path=scan,frames=6,color=32x24"),
            sourceOptions: SourceOptions(),
            frame: .world, frameLimit: nil, fuse: true, outputs: [], filters: FilterPipeline(steps: [], organized: false),
            observer: SilentObserver())
        pipeline.collector = collector
        _ = try pipeline.run()
        let scan = try XCTUnwrap(RoomScan.collected(collector, name: "scan"))
        let starts = try XCTUnwrap(scan.frameStarts)
        XCTAssertEqual(starts.count, 6)
        let ends = Array(starts.dropFirst()) + [scan.cloud.count]
        for (k, (first, end)) in zip(starts, ends).enumerated() {
            XCTAssertGreaterThan(end, first, "frame \(k) has points")
            let camera = scan.cameras[k]
            let forward = camera.apply(SIMD3(0, 0, 1)) - camera.translation
            for i in stride(from: first, to: end, by: 97) {
                let p = SIMD3(
                    Double(scan.cloud.positions[3 * i]), Double(scan.cloud.positions[3 * i + 1]), Double(scan.cloud.positions[3 * i + 2]))
                // Within the simulated camera's field of view of its optical axis.
                let d = p - camera.translation
                XCTAssertGreaterThan(dot(d, forward), 0.5 * (d * d).sum().squareRoot(), "point \(i) of frame \(k)")
            }
        }
    }
}
