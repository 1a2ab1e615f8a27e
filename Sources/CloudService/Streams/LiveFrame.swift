import CloudCore
import CloudImages
import CloudRender
import CloudStream
import Foundation
import SafeIO

/// One frame of a stream, made once and sent to every viewer: its cloud, and on first demand
/// each packing the viewers ask for (one per point budget), the JET depth picture and the color
/// picture. Viewers of the same budget share one packing.
final class LiveFrame: @unchecked Sendable {
    /// The color a viewer may ask for: the JPEG a client pushed, sent as it came, or a server-run
    /// source's pixels, drawn as PNG when first asked for.
    enum Color {
        case jpeg(Data, width: Int, height: Int)
        case pixels(ColorImage)
    }

    let index: Int
    let captured: Int64
    let received: Int64
    let cloud: PointCloud
    /// The camera's pose when the cloud is in the world frame; nil for a camera-frame cloud.
    let worldPose: Pose?
    private let depth: DepthMap
    private let color: Color?
    private let lock = NSLock()
    private var packings: [Int: QuantisedCloud] = [:]
    private var depthPicture: (LiveHeader.Image, Data)?
    private var colorPicture: (LiveHeader.Image, Data)?
    /// The memory the frame was made in, reserved until the frame goes (once the stream has a
    /// newer one and every viewer has sent it): a held frame counts against the server's memory.
    private let claim: MemoryClaim?

    init(
        index: Int, captured: Int64, received: Int64, cloud: PointCloud, worldPose: Pose?, depth: DepthMap, color: Color?,
        claim: MemoryClaim? = nil
    ) {
        self.claim = claim
        self.index = index
        self.captured = captured
        self.received = received
        self.cloud = cloud
        self.worldPose = worldPose
        self.depth = depth
        self.color = color
    }

    /// The message a viewer with `budget` is sent, stamped `sent` now; with `framing`, the camera
    /// `cloudgen render` would draw this frame with at that picture size (a viewer's first frame).
    func message(
        budget: Int, depth wantsDepth: Bool, color wantsColor: Bool, framing: (width: Int, height: Int)?, skipped: Int
    ) throws -> StreamMessage {
        let (packed, depthPicture, colorPicture) = try lock.withLock {
            let packed = packings[budget] ?? QuantisedCloud(cloud, budget: budget)
            packings[budget] = packed
            return (packed, wantsDepth ? try depthImage() : nil, wantsColor ? try colorImage() : nil)
        }
        let camera = try framing.map { try self.camera(width: $0.width, height: $0.height) }
        let header = LiveHeader(
            frame: index, captured: captured, received: received, sent: StreamClock.now(), points: packed.count, total: packed.total,
            origin: [packed.origin.x, packed.origin.y, packed.origin.z], scale: packed.scale, depth: depthPicture?.0,
            color: colorPicture?.0, camera: camera,
            pointSize: framing.map { RenderStyle.automaticPointSize(points: cloud.finiteCount, width: $0.width, height: $0.height) },
            skipped: skipped)
        return try StreamMessage(header: header, payloads: packed.payloads + [depthPicture?.1, colorPicture?.1].compactMap { $0 })
    }

    /// The preview's camera: a camera-frame cloud seen from its camera, a world-frame one from
    /// the frame's camera, upright in the world.
    private func camera(width: Int, height: Int) throws -> ViewCamera {
        let view = worldPose.map { RenderView(cameraPose: $0, width: width, height: height) } ?? RenderView(width: width, height: height)
        return ViewCamera(try PointRenderer(cloud: cloud, origin: "frame \(index)").camera(for: view))
    }

    /// The depth as the capture routes draw it (near red, far blue), at the depth map's size.
    private func depthImage() throws -> (LiveHeader.Image, Data) {
        if let depthPicture { return depthPicture }
        let image = try DepthImage.render(depth: depth, origin: "frame \(index)")
        let png = Data(try PNGWriter.encode(rgb: image, origin: "frame \(index)"))
        let made = (LiveHeader.Image(encoding: "png", width: image.width, height: image.height, bytes: png.count), png)
        depthPicture = made
        return made
    }

    private func colorImage() throws -> (LiveHeader.Image, Data)? {
        if let colorPicture { return colorPicture }
        let made: (LiveHeader.Image, Data)
        switch color {
        case nil:
            return nil
        case .jpeg(let bytes, let width, let height):
            made = (LiveHeader.Image(encoding: "jpeg", width: width, height: height, bytes: bytes.count), bytes)
        case .pixels(let image):
            let png = Data(try PNGWriter.encode(rgb: image, origin: "frame \(index)"))
            made = (LiveHeader.Image(encoding: "png", width: image.width, height: image.height, bytes: png.count), png)
        }
        colorPicture = made
        return made
    }
}
