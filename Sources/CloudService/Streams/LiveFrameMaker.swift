import CloudCapture
import CloudCore
import CloudPCL
import CloudPipeline
import Foundation

/// What each frame of a stream becomes: `cloudgen capture`'s steps for one frame (depth to
/// metres, back-projection within the range, the pose into the world frame with `frame=world`,
/// the filters), so that a viewer's cloud is the CLI's cloud of that frame.
struct LiveFrameMaker: Sendable {
    /// Names the stream in errors.
    let origin: String
    let frame: OutputFrame
    let filters: FilterPipeline

    func make(
        _ captured: CapturedFrame, index: Int, capturedAt: Int64, received: Int64, range: ClosedRange<Float>?, jpeg: Data?
    ) throws -> LiveFrame {
        let rgbd = try RGBDFrame(decoding: captured, origin: origin, colorAtDepthResolution: true)
        var (cloud, _) = try BackProjection(options: .init(range: range, organized: filters.wantsGrid)).run(rgbd)
        var viewpoint = Viewpoint.camera
        var worldPose: Pose?
        if frame == .world {
            guard let pose = rgbd.pose else {
                throw CloudError.badInput("\(origin): frame \(index) has no pose, which frame=world needs")
            }
            pose.transform(positions: &cloud.positions)
            viewpoint = Viewpoint(pose: pose)
            worldPose = pose
        }
        if !filters.steps.isEmpty {
            // A frame's filter notes (a grid the voxel grid dropped) are the same for every frame,
            // and a live view has nowhere to show them.
            var notes: [CloudWarning] = []
            (cloud, _) = try filters.run(cloud, viewpoint: viewpoint, warnings: &notes)
        }
        let color: LiveFrame.Color? =
            if let jpeg, let pushed = captured.color {
                .jpeg(jpeg, width: pushed.width, height: pushed.height)
            } else {
                rgbd.color.map { .pixels($0) }
            }
        return LiveFrame(
            index: index, captured: capturedAt, received: received, cloud: cloud, worldPose: worldPose, depth: rgbd.depth, color: color)
    }
}
