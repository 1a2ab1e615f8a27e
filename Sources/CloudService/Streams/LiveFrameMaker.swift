import CloudCapture
import CloudCore
import CloudPCL
import CloudPipeline
import Foundation
import SafeIO

/// What each frame of a stream becomes: `cloudgen capture`'s stage for one frame (`FrameStage`:
/// depth to metres, back-projection within the range, the pose into the world frame with
/// `frame=world`, the filters), so that a viewer's cloud is the CLI's cloud of that frame.
///
/// Each frame is made under the limits of a request: its memory is claimed (`MemoryClaim`, with
/// the request's share) before its buffers exist, and the claim goes with the frame until the
/// frame goes; its filters are held to a frame's CPU share and stop between steps once the
/// stream has ended.
struct LiveFrameMaker: Sendable {
    /// Names the stream in errors.
    let origin: String
    let frame: OutputFrame
    let filters: FilterPipeline
    let memoryShare: MemoryShare

    /// The CPU share of one frame's filters: a live view must keep up with its camera, and a
    /// deleted stream's filter work ends within it (a step inside PCL runs to its end).
    static func frameShare(seconds: Double) -> CPUShare {
        CPUShare(
            seconds: seconds, holder: "a frame of a live stream",
            setting: "record the stream and filter the capture it makes for more")
    }

    init(origin: String, order: CaptureOrder, limits: WorkLimits, frameSeconds: Double, stop: StopFlag) {
        self.origin = origin
        frame = order.frame
        // A request's memory, worded for a close reason's 123 bytes.
        var share = limits.memoryShare
        share.holder = "a frame"
        var filters = order.filters
        filters.cpuShare = Self.frameShare(seconds: frameSeconds)
        filters.memoryShare = share
        filters.stop = { stop.isRaised }
        self.filters = filters
        memoryShare = share
    }

    /// Reads or decodes a frame with `capture` and makes it, under one new memory claim that the
    /// frame then keeps. `capture` may return nil (nothing to make).
    func claimed(_ capture: (MemoryClaim) throws -> LiveFrame?) throws -> LiveFrame? {
        let claim = MemoryClaim(share: memoryShare)
        return try claim.run { try capture(claim) }
    }

    func make(
        _ captured: CapturedFrame, index: Int, capturedAt: Int64, received: Int64, range: ClosedRange<Float>?, jpeg: Data?,
        claim: MemoryClaim?
    ) throws -> LiveFrame {
        let stage = FrameStage(range: range, posed: frame == .world, filters: filters)
        let rgbd = try stage.decode(captured, origin: origin)
        // A frame's filter notes (a grid the voxel grid dropped) are the same for every frame, and
        // a live view has nowhere to show them.
        var notes: [CloudWarning] = []
        let made = try stage.cloud(of: rgbd, index: index, origin: origin, warnings: &notes)
        let color: LiveFrame.Color? =
            if let jpeg, let pushed = captured.color {
                .jpeg(jpeg, width: pushed.width, height: pushed.height)
            } else {
                rgbd.color.map { .pixels($0) }
            }
        return LiveFrame(
            index: index, captured: capturedAt, received: received, cloud: made.cloud, worldPose: made.pose, depth: rgbd.depth,
            color: color,
            claim: claim)
    }
}
