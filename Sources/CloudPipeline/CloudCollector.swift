import CloudCore

/// What a capture leaves for a command that works on its cloud in memory rather than from a file
/// (`cloudgen measure --source ...`): the cloud, in the capture's output frame, where each camera
/// stood in that frame, and which way is up there when the source knows it.
public final class CloudCollector {
    /// The fused cloud, or the last frame's.
    public internal(set) var cloud: PointCloud?
    /// Camera-to-cloud pose of every frame taken, in order (the identity for a camera-frame frame).
    public private(set) var cameras: [Pose] = []
    /// Up (against gravity) in the cloud's frame; nil when the source does not know it.
    public private(set) var up: SIMD3<Double>?
    /// Where each camera's points begin in a fused cloud, in `cameras`' order: the fuse appends
    /// every frame's points after the last's, so the cloud knows which frame each point came
    /// from. Empty for one frame's cloud, and once a filter has moved or merged the points.
    public internal(set) var frameStarts: [Int] = []

    private var worldUp: SIMD3<Double>?
    private var worldFrame = false

    public init() {}

    func begin(worldUp: SIMD3<Double>?, worldFrame: Bool) {
        self.worldUp = worldUp
        self.worldFrame = worldFrame
        cameras = []
        frameStarts = []
        up = nil
    }

    /// Notes one frame's camera: `pose` in a world-frame capture, nil in a camera-frame one, where
    /// every cloud is seen from the origin and up comes from the first frame's pose, if any.
    func camera(_ pose: Pose?, firstPose: Pose?) {
        cameras.append(pose ?? .identity)
        guard let worldUp else { return }
        if worldFrame {
            up = worldUp
        } else if let firstPose {
            up = firstPose.inverseRotate(worldUp)
        }
    }
}
