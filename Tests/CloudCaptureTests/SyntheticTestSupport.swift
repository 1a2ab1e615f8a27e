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

extension Pose {
    /// The world-frame direction of a camera-frame direction.
    func rotate(_ d: SIMD3<Double>) -> SIMD3<Double> {
        apply(d) - translation
    }
}
