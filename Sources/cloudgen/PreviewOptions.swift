import ArgumentParser
import CloudCore
import CloudIO
import CloudRender
import Foundation

/// `capture`'s pictures: a rendered preview of the cloud and the depth map as a colormap image.
struct PreviewOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Also draw the cloud as a PNG from the capturing camera's view (as `cloudgen render` with its defaults; a sequence without --fuse gets NAME_000.png ...).", valueName: "file"))
    var preview: String?

    @Option(help: ArgumentHelp("Also write the depth map as a PNG: jet colormap, red near and blue far, over a scale bar in metres.", valueName: "file"))
    var depthImage: String?

    @Option(help: ArgumentHelp("Blend the --depth-image colormap over the color image with this weight, 0...1 (0: color only, 1: colormap only).", valueName: "a"))
    var depthBlend: Float?

    /// nil when no picture was asked for.
    func outputs() throws -> PreviewOutputs? {
        if depthBlend != nil && depthImage == nil {
            throw CloudError.badInput("--depth-blend needs --depth-image FILE to say where the blended image goes")
        }
        if let depthBlend, !(depthBlend.isFinite && (0...1).contains(depthBlend)) {
            throw CloudError.badInput("--depth-blend \(depthBlend): needs the colormap's weight within 0...1, e.g. 0.5")
        }
        guard preview != nil || depthImage != nil else { return nil }
        for path in [preview, depthImage].compactMap({ $0 }) { try AtomicFile.checkWritable(path) }
        return PreviewOutputs(previewPath: preview, depthImagePath: depthImage, depthBlend: depthBlend)
    }
}

/// What CapturePipeline calls to draw its pictures; `suffix` numbers the files of a sequence.
final class PreviewOutputs {
    let previewPath: String?
    let depthImagePath: String?
    let depthBlend: Float?
    /// The first posed frame's camera: world-frame previews look from it.
    private var firstPose: Pose?
    /// The pictures written so far, for the report.
    private(set) var written: [String] = []

    init(previewPath: String?, depthImagePath: String?, depthBlend: Float?) {
        self.previewPath = previewPath
        self.depthImagePath = depthImagePath
        self.depthBlend = depthBlend
    }

    /// Called with every frame: writes its depth image, and remembers the first camera pose.
    func writeDepthImage(_ frame: RGBDFrame, suffix: Int?, origin: String) throws {
        if firstPose == nil { firstPose = frame.pose }
        guard let path = depthImagePath.map({ p in suffix.map { CapturePipeline.numbered(p, $0) } ?? p }) else { return }
        let image = try DepthImage.render(depth: frame.depth, color: depthBlend == nil ? nil : frame.color,
                                          blend: depthBlend, origin: origin)
        try AtomicFile.write(bytes: try PNGWriter.encode(rgb: image, origin: path), to: path)
        written.append(path)
    }

    /// A camera-frame cloud is drawn from its camera (up -y); a world-frame one from the first
    /// frame's camera, upright in the world (rooms: z up).
    func writePreview(_ cloud: PointCloud, worldFrame: Bool, suffix: Int?) throws {
        guard let path = previewPath.map({ p in suffix.map { CapturePipeline.numbered(p, $0) } ?? p }) else { return }
        let renderer = PointRenderer(cloud: cloud)
        let view = worldFrame ? firstPose.map { RenderView(cameraPose: $0) } ?? RenderView(up: .worldFrame) : RenderView()
        let style = RenderStyle(color: renderer.defaultColorMode,
                                pointSize: RenderStyle.automaticPointSize(points: cloud.finiteCount, width: view.width, height: view.height))
        _ = try PreviewWriter(renderer: renderer, view: view, style: style).write(to: path)
        written.append(path)
    }
}
