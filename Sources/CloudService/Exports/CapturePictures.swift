import CloudCore
import CloudImages
import CloudPipeline
import CloudRender
import Foundation
import SafeIO

/// A capture's pictures as derived files, drawn on first request on the export pool: the picture
/// routes serve them and the capture's zip packs the same files.
struct CapturePictures {
    let derived: DerivedFiles

    /// The depth picture's path (the first frame's depth as jet over a scale bar).
    func depthImage(_ id: CaptureID, _ folder: URL) async throws -> String {
        let depthMap = folder.appendingPathComponent(CaptureFiles.depthMap).path
        return try await derived.file("depth.png", in: folder, capture: id) { path, _ in
            let image = try DepthImage.render(depth: try DepthMapFile.read(depthMap), origin: "capture \(id)")
            try AtomicFile.write(bytes: try PNGWriter.encode(rgb: image, origin: path), to: path)
        }
    }

    /// A preview's derived-file name and path.
    func preview(_ id: CaptureID, _ folder: URL, azimuth: Double, elevation: Double, width: Int, height: Int) async throws -> (
        String, String
    ) {
        let name = DerivedFiles.name("preview \(azimuth) \(elevation) \(width) \(height)", extension: "png")
        let stored = folder.appendingPathComponent(CaptureFiles.cloud).path
        let variant = try await derived.file(name, in: folder, capture: id) { path, _ in
            let view = RenderView(width: width, height: height, azimuth: Float(azimuth), elevation: Float(elevation))
            var clock = Stopwatch()
            _ = try FilePreview(view: view).load(stored, origin: "capture \(id)", clock: &clock).writer.write(to: path)
        }
        return (name, variant)
    }
}
