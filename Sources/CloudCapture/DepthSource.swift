import CloudCore

/// Anything that delivers captured frames: the simulated camera, datasets, capture bundles, and
/// (later) recordings and USB cameras. Sources hand out raw `CapturedFrame`s so that every one of them
/// goes through the same conversion code (`RGBDFrame(decoding:origin:)`).
///
/// A source is a stateful reader (it remembers how far it has got), hence a class.
public protocol DepthSource: AnyObject {
    /// Identifies the source in messages and `--json` output, e.g.
    /// "synthetic:room=4x3x2.5,seed=0,noise=1,depth=256x192,color=1920x1440,format=depth16".
    var name: String { get }

    /// Whether frames carry a camera-to-world pose (needed for `--frame world` and fusion).
    var knowsPose: Bool { get }

    /// The next frame, or nil once a finite source is exhausted.
    func nextFrame() throws -> CapturedFrame?

    /// What the user must know about the data before trusting the cloud (defaults that were
    /// assumed, depth that is not metric, ...), one sentence each. Nothing is silent.
    var warnings: [CloudWarning] { get }

    /// How many frames the source has in all, when it knows (a recording, the simulated camera);
    /// nil for a live camera. Progress shows a total and the time left from it.
    var knownFrameCount: Int? { get }

    /// The world frame's up direction (against gravity), when the source knows it: the simulated
    /// rooms stand on z = 0 with z up. nil when the poses' world frame is only the first camera's
    /// (datasets, odometry), where up must be found in the data.
    var worldUp: SIMD3<Double>? { get }
}

extension DepthSource {
    public var warnings: [CloudWarning] { [] }
    public var knownFrameCount: Int? { nil }
    public var worldUp: SIMD3<Double>? { nil }
}

extension DatasetSource {
    public var knownFrameCount: Int? { frameCount }
}

extension SyntheticCamera {
    public var knownFrameCount: Int? { poses.count }
    public var worldUp: SIMD3<Double>? { SIMD3(0, 0, 1) }
}
