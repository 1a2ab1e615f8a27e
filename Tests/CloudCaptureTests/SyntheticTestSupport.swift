import CloudCapture
import CloudCore
import XCTest

/// The simulated camera a spec opens, through the same path the CLI takes.
func syntheticCamera(_ spec: String) throws -> SyntheticCamera {
    let source = try SourceSpec(parsing: spec).open()
    guard let camera = source as? SyntheticCamera else {
        throw CloudError.badInput("\(spec) did not open the simulated camera")
    }
    return camera
}

/// The depth plane of a spec's frame, in metres.
func renderedDepth(_ spec: String) throws -> DepthMap {
    let d = try syntheticCamera(spec).renderFrame().depth
    return try d.data.withUnsafeBytes {
        try DepthMap(raw: $0, width: d.width, height: d.height, encoding: d.encoding, bytesPerRow: d.bytesPerRow, origin: spec)
    }
}

/// A posed frame's points in the world, with their colors: back-projected as every source's frames
/// are, then placed by the frame's pose, passed through `world` (e.g. the simulated room's z-up
/// world turned into ARKit's y-up one).
func worldPoints(_ frame: CapturedFrame, world: (Pose) -> Pose = { $0 }) throws -> (positions: [Float], colors: [UInt8]) {
    var cloud = try BackProjection().run(RGBDFrame(decoding: frame, origin: "frame")).cloud
    world(try XCTUnwrap(frame.pose)).transform(positions: &cloud.positions)
    return (cloud.positions, cloud.colors ?? [])
}

/// A phone app's frame against the simulator's own (`truth`, posed in ARKit's world): the same
/// world points to within 0.01 mm, less the `dropped` pixels. Returns both frames' colors when
/// every point is there, for the caller to hold to its codec's tolerance.
func assertSameWorldPoints(
    _ frame: CapturedFrame, as truth: CapturedFrame, index: Int, dropped: Int, file: StaticString, line: UInt
) throws -> (ours: [UInt8], expected: [UInt8])? {
    let (ours, oursColors) = try worldPoints(frame)
    let (expected, expectedColors) = try worldPoints(truth, world: PolycamFixture.arkitWorld)
    XCTAssertEqual(ours.count, expected.count - 3 * dropped, "frame \(index): points", file: file, line: line)
    guard dropped == 0, ours.count == expected.count else { return nil }
    let worst = zip(ours, expected).map { abs($0 - $1) }.max() ?? .infinity
    XCTAssertLessThan(worst, 1e-5, "frame \(index): largest difference from the simulator's world points (m)", file: file, line: line)
    return (oursColors, expectedColors)
}

/// How many pixels of a 16-bit depth frame within `columns` hold depth (a nonzero sample).
func validDepthPixels(_ frame: CapturedFrame, columns: Range<Int>) -> Int {
    let w = frame.depth.width
    return (0..<(w * frame.depth.height)).filter {
        columns.contains($0 % w) && (frame.depth.data[2 * $0] | frame.depth.data[2 * $0 + 1]) != 0
    }.count
}

extension Pose {
    /// The world-frame direction of a camera-frame direction.
    func rotate(_ d: SIMD3<Double>) -> SIMD3<Double> {
        apply(d) - translation
    }
}
