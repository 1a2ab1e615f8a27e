import ArgumentParser
import CloudCore
import CloudPipeline
import CloudRender
import Foundation
import SafeIO

/// `capture`'s pictures: a rendered preview of the cloud and the depth map as a colormap image.
struct PreviewOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Also draw the cloud as a PNG from the capturing camera's view (as `cloudgen render` with its defaults; a sequence without --fuse gets NAME_000.png ...).",
            valueName: "file"))
    var preview: String?

    @Option(
        help: ArgumentHelp(
            "Also write the depth map as a PNG: jet colormap, red near and blue far, over a scale bar in metres.", valueName: "file"))
    var depthImage: String?

    @Option(
        help: ArgumentHelp(
            "Blend the --depth-image colormap over the color image with this weight, 0...1 (0: color only, 1: colormap only).",
            valueName: "a"))
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
