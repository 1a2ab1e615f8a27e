import CloudCore
import CloudImages
import CloudRender
import Foundation
import SafeIO

/// What CapturePipeline calls to draw its pictures; `suffix` numbers the files of a sequence.
public final class PreviewOutputs {
    public let previewPath: String?
    public let depthImagePath: String?
    public let depthBlend: Float?
    /// Where the first frame's depth map goes as it is (`DepthMapFile`), to be drawn later.
    public let depthMapPath: String?
    private var depthMapKept = false
    /// The first posed frame's camera: world-frame previews look from it.
    private var firstPose: Pose?
    /// The pictures written so far, for the report.
    public private(set) var written: [String] = []

    public init(previewPath: String?, depthImagePath: String?, depthBlend: Float?, depthMapPath: String? = nil) {
        self.previewPath = previewPath
        self.depthImagePath = depthImagePath
        self.depthBlend = depthBlend
        self.depthMapPath = depthMapPath
    }

    /// Called with every frame: writes its depth image, and remembers the first camera pose (and
    /// keeps the first depth map, when asked to).
    public func writeDepthImage(_ frame: RGBDFrame, suffix: Int?, origin: String) throws {
        if firstPose == nil { firstPose = frame.pose }
        if let depthMapPath, !depthMapKept {
            try DepthMapFile.write(frame.depth, to: depthMapPath)
            depthMapKept = true
        }
        guard let path = depthImagePath.map({ p in suffix.map { CapturePipeline.numbered(p, $0) } ?? p }) else { return }
        let image = try DepthImage.render(
            depth: frame.depth, color: depthBlend == nil ? nil : frame.color,
            blend: depthBlend, origin: origin)
        try AtomicFile.write(bytes: try PNGWriter.encode(rgb: image, origin: path), to: path)
        written.append(path)
    }

    /// A camera-frame cloud is drawn from its camera (up -y); a world-frame one from the first
    /// frame's camera, upright in the world (rooms: z up).
    public func writePreview(_ cloud: PointCloud, worldFrame: Bool, suffix: Int?) throws {
        guard let path = previewPath.map({ p in suffix.map { CapturePipeline.numbered(p, $0) } ?? p }) else { return }
        let renderer = PointRenderer(cloud: cloud)
        let view = worldFrame ? firstPose.map { RenderView(cameraPose: $0) } ?? RenderView(up: .worldFrame) : RenderView()
        let style = RenderStyle(
            color: renderer.defaultColorMode,
            pointSize: RenderStyle.automaticPointSize(points: cloud.finiteCount, width: view.width, height: view.height))
        _ = try PreviewWriter(renderer: renderer, view: view, style: style).write(to: path)
        written.append(path)
    }
}
