import CloudCore
import Foundation

/// A Polycam raw-data export (`--source polycam:DIR`, DIR holding `keyframes/`), as Polycam's
/// description of its raw data (the polyform project's README, "Polycam's data format") lays it out:
///
///     keyframes/images/NAME.jpg            the keyframe's color image
///     keyframes/cameras/NAME.json          its intrinsics at the image's size and its pose
///     keyframes/depth/NAME.png             16-bit depth in millimetres (LiDAR, 256x192)
///     keyframes/confidence/NAME.png        8-bit ARKit confidence: 0 low, 127 medium, 255 high
///     keyframes/corrected_images/, corrected_cameras/   the same after Polycam's pose refinement
///
/// The corrected set is used when the export has it (a note says which set was read). Each camera
/// file makes a frame, in time order (Polycam names keyframes by their timestamp in microseconds);
/// its depth map and image must exist. Intrinsics are scaled from the image's size to the depth
/// map's, poses turned from ARKit's camera axes to cloudgen's; the world is ARKit's gravity-aligned
/// one, y up. Depth of low confidence is dropped unless `--min-confidence 0` keeps it: Polycam's
/// description calls it quite unreliable and advises filtering it out.
public final class PolycamSource: DatasetSource {
    public static let unitsPerMetre = 1000.0
    static let layout = "keyframes/ with cameras/, images/, depth/ and optionally confidence/ and the corrected_ sets"

    public let directory: String
    public let frameCount: Int
    public let knowsPose = true
    /// ARKit's gravity-aligned world: +y points up.
    public var worldUp: SIMD3<Double>? { SIMD3(0, 1, 0) }
    public let warnings: [CloudWarning]
    public var name: String { "polycam:\(directory)" }

    private var queue: FrameQueue

    public init(directory: String, options: SourceOptions = SourceOptions()) throws {
        self.directory = directory
        try DatasetFiles.requireDirectory(directory, kind: "polycam", layout: Self.layout)
        let keyframes = DatasetFiles.join(directory, "keyframes")
        guard DatasetFiles.isDirectory(keyframes) else {
            throw CloudError.badInput(.source("polycam:\(directory)"), "no keyframes/ folder (expected \(Self.layout))")
        }
        func folder(_ name: String) -> String { DatasetFiles.join(keyframes, name) }
        let corrected = DatasetFiles.isDirectory(folder("corrected_cameras"))
        let cameraFolder = folder(corrected ? "corrected_cameras" : "cameras")
        let imageFolder = folder(corrected && DatasetFiles.isDirectory(folder("corrected_images")) ? "corrected_images" : "images")
        guard DatasetFiles.isDirectory(cameraFolder) else {
            throw CloudError.badInput(.source("polycam:\(directory)"), "no keyframes/cameras/ folder (expected \(Self.layout))")
        }
        let names = try DatasetFiles.files(in: cameraFolder, extensions: ["json"])
        guard !names.isEmpty else { throw CloudError.badInput(.file(cameraFolder), "holds no camera files (.json)") }
        // In time order: by the microsecond timestamps the names are (a name with one digit more is
        // a later time, though it sorts first as text), or by name if some name is not a number.
        let stamps = names.map { Int(($0 as NSString).deletingPathExtension) }
        let timed = stamps.allSatisfy { $0 != nil }
        let cameras: [(name: String, order: Int)] =
            timed
            ? zip(names, stamps.compactMap { $0 }).sorted { $0.1 < $1.1 }
            : Array(zip(names, names.indices))

        let source = CloudError.Subject.source("polycam:\(directory)")
        var warnings = [
            CloudWarning(
                source,
                "reading the \(corrected ? "corrected" : "uncorrected") keyframes (\((cameraFolder as NSString).lastPathComponent)/, \((imageFolder as NSString).lastPathComponent)/)"
            )
        ]
        let confidenceFolder = folder("confidence")
        let hasConfidence = DatasetFiles.isDirectory(confidenceFolder)
        if let asked = options.minConfidence, asked > 0, !hasConfidence {
            throw CloudError.badInput(
                .source("polycam:\(directory)"), "--min-confidence needs keyframes/confidence/, which this export does not have")
        }
        let minimum = options.minConfidence ?? (hasConfidence ? 1 : 0)
        var frames: [DatasetFrame] = []
        // A keyframe whose depth map or image is missing (an export copied without a few) is left
        // out, and the note names it; the others are matched to their cameras by name.
        var incomplete: [String] = []
        for (file, order) in cameras {
            let stem = (file as NSString).deletingPathExtension
            let camera = try PolycamCamera(path: DatasetFiles.join(cameraFolder, file))
            let depth = DatasetFiles.join(folder("depth"), stem + ".png")
            let image = DatasetFiles.join(imageFolder, stem + ".jpg")
            guard DatasetFiles.isFile(depth), DatasetFiles.isFile(image) else {
                incomplete.append(stem)
                continue
            }
            var mask: ConfidenceMask?
            if minimum > 0 {
                let confidence = DatasetFiles.join(confidenceFolder, stem + ".png")
                try DatasetFiles.requireFile(confidence, "the confidence map of keyframe \(stem), which --min-confidence reads")
                mask = ConfidenceMask(path: confidence, minimum: minimum, mediumFrom: 127, highFrom: 255)
            }
            frames.append(
                DatasetFrame(
                    depthPath: depth, colorPath: image, intrinsics: .fixed(camera.intrinsics), depthEncoding: .standard,
                    unitsPerMetre: Self.unitsPerMetre, pose: camera.pose, timestamp: timed ? Double(order) / 1e6 : Double(order),
                    confidence: mask))
        }
        guard !frames.isEmpty else {
            throw CloudError.badInput(
                .source("polycam:\(directory)"),
                "none of the \(cameras.count) keyframes has both its depth map (keyframes/depth/NAME.png) and its image (\((imageFolder as NSString).lastPathComponent)/NAME.jpg)"
            )
        }
        if !incomplete.isEmpty {
            let named = incomplete.prefix(4).joined(separator: ", ") + (incomplete.count > 4 ? " and \(incomplete.count - 4) more" : "")
            warnings.append(
                CloudWarning(source, "\(incomplete.count) of \(cameras.count) keyframes (\(named)) lack their depth map or image; left out")
            )
        }
        if options.minConfidence == nil {
            warnings.append(
                CloudWarning(
                    source,
                    hasConfidence
                        ? "depth of low ARKit confidence dropped, as Polycam advises (\(option: "min-confidence", "0") keeps it, 2 keeps high only)"
                        : "no keyframes/confidence/; every depth pixel is kept"))
        }
        frameCount = frames.count
        queue = FrameQueue(frames)
        self.warnings = warnings
    }

    public func nextFrame() throws -> CapturedFrame? {
        try queue.pop()
    }
}
