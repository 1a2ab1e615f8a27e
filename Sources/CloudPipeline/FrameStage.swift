import CloudCapture
import CloudCore
import CloudPCL

/// One frame's way from the source to its cloud: raw planes to metres and sRGB, back-projection
/// within the depth range (onto the grid when a filter wants it), the pose into the world frame,
/// and the filters. `CapturePipeline` (the CLI's captures, the service's uploads, jobs and
/// recordings, the bench) and a live stream's frames (`LiveFrameMaker`) both run it, so a viewer's
/// cloud is the CLI's cloud of that frame, made under the same limits (the filters carry their
/// memory and CPU shares and their stop).
public struct FrameStage: Sendable {
    /// Back-projection's limits along the optical axis (`--range`).
    public var range: ClosedRange<Float>?
    /// Place the cloud by the frame's pose (`--frame world`, `--fuse`).
    public var posed: Bool
    /// The steps run on this frame's cloud; none when they run later on a fused cloud, but the grid
    /// is still kept for them when they want it.
    public var filters: FilterPipeline
    /// Whether `filters` run here (not with `--fuse`, whose steps see the fused cloud).
    public var filtersEachFrame: Bool

    public init(range: ClosedRange<Float>?, posed: Bool, filters: FilterPipeline, filtersEachFrame: Bool = true) {
        self.range = range
        self.posed = posed
        self.filters = filters
        self.filtersEachFrame = filtersEachFrame
    }

    /// A frame's cloud, where its camera stood, and what back-projection and the filters did.
    public struct Cloud {
        public var cloud: PointCloud
        public var counts: BackProjection.Counts
        public var viewpoint: Viewpoint
        /// The camera-to-world pose it was placed by; nil in the camera frame.
        public var pose: Pose?
        public var reports: [FilterStepReport]
    }

    /// The frame in metres; only the color pixels the cloud samples are converted.
    public func decode(_ captured: CapturedFrame, origin: String) throws -> RGBDFrame {
        try RGBDFrame(decoding: captured, origin: origin, colorAtDepthResolution: true)
    }

    /// `rgbd`'s cloud; `lap` is told as each part ends ("backProject", "toWorld", "filter"), for a
    /// capture's stage timings. Filter notes (a grid the voxel grid dropped) go to `warnings`.
    public func cloud(
        of rgbd: RGBDFrame, index: Int, origin: String, warnings: inout [CloudWarning], lap: (String) -> Void = { _ in }
    ) throws -> Cloud {
        var (cloud, counts) = try BackProjection(options: .init(range: range, organized: filters.wantsGrid)).run(rgbd)
        lap("backProject")
        var viewpoint = Viewpoint.camera
        var placed: Pose?
        if posed {
            guard let pose = rgbd.pose else {
                throw CloudError.badInput("\(origin): frame \(index) has no pose, which the world frame needs")
            }
            pose.transform(positions: &cloud.positions)
            viewpoint = Viewpoint(pose: pose)
            placed = pose
            lap("toWorld")
        }
        var reports: [FilterStepReport] = []
        if filtersEachFrame && !filters.steps.isEmpty {
            (cloud, reports) = try filters.run(cloud, viewpoint: viewpoint, warnings: &warnings)
            lap("filter")
        }
        return Cloud(cloud: cloud, counts: counts, viewpoint: viewpoint, pose: placed, reports: reports)
    }
}
