import CloudCore
import CloudImages
import Foundation
import SafeIO

/// A Stray Scanner export (`--source stray:DIR`), as the app's format description (the
/// strayrobots/scanner repository's docs/format.md) lays it out:
///
///     rgb.mp4               the color camera's video (HEVC), one frame per saved frame
///     depth/000000.png      16-bit depth in millimetres (LiDAR, 256x192); .npy before 2022
///     confidence/000000.png ARKit's confidence of each depth pixel: 0 low, 1 medium, 2 high
///     camera_matrix.csv     the 3x3 intrinsic matrix at the video's frame size
///     odometry.csv          timestamp, frame, x, y, z, qx, qy, qz, qw: each frame's camera-to-world pose
///
/// Frame N is the Nth frame of the video, depth/N and the odometry's line for frame N (as the
/// app writes them, and as the description's own viewer, StrayVisualizer, pairs them). The video
/// is decoded in order as frames are asked for, never held whole. Intrinsics are scaled from the
/// video's size to the depth map's; the world is ARKit's gravity-aligned one, y up. Depth of low
/// confidence is dropped unless `--min-confidence 0` keeps it (StrayVisualizer's default is 1).
public final class StraySource: DatasetSource {
    public static let unitsPerMetre = 1000.0
    static let layout = "rgb.mp4, camera_matrix.csv, odometry.csv, depth/ (000000.png or .npy, ...) and optionally confidence/"

    public let directory: String
    public let frameCount: Int
    public let knowsPose = true
    /// ARKit's gravity-aligned world: +y points up.
    public var worldUp: SIMD3<Double>? { SIMD3(0, 1, 0) }
    public let warnings: [CloudWarning]
    public var name: String { "stray:\(directory)" }

    private struct Frame {
        /// Its place in rgb.mp4 (and odometry.csv): frames whose depth is missing are decoded
        /// past, not shown with the next frame's colors.
        var videoIndex: Int
        var depthPath: String
        var confidence: ConfidenceMask?
        var pose: Pose
        var timestamp: Double
    }

    private let frames: [Frame]
    /// The frames odometry.csv (and so rgb.mp4) lists, those left out for want of depth included.
    private let listed: Int
    private let video: VideoFrames
    private let intrinsics: CameraIntrinsics
    private var next = 0

    public init(directory: String, options: SourceOptions = SourceOptions()) throws {
        self.directory = directory
        try DatasetFiles.requireDirectory(directory, kind: "stray", layout: Self.layout)
        func path(_ name: String) -> String { DatasetFiles.join(directory, name) }
        for (file, what) in [("rgb.mp4", "the color video"), ("camera_matrix.csv", "the intrinsics"), ("odometry.csv", "the poses")] {
            try DatasetFiles.requireFile(path(file), "\(what) of a Stray Scanner export, which holds \(Self.layout)")
        }
        let depthFolder = path("depth")
        guard DatasetFiles.isDirectory(depthFolder) else {
            throw CloudError.badInput(.source("stray:\(directory)"), "no depth/ folder (expected \(Self.layout))")
        }
        let odometry = try StrayOdometry(path: path("odometry.csv"))
        // The video's header is read now: a file that is no video fails before any frame is written.
        video = try VideoFrames(path: path("rgb.mp4"))
        if let declared = video.declaredFrameCount, declared != odometry.entries.count {
            throw CloudError.badInput(.file(video.path), "\(declared) frame(s), odometry.csv \(odometry.entries.count); a frame has both")
        }
        intrinsics = try StrayCameraMatrix.read(path: path("camera_matrix.csv"), width: video.width, height: video.height)

        let confidenceFolder = path("confidence")
        let hasConfidence = DatasetFiles.isDirectory(confidenceFolder)
        if let asked = options.minConfidence, asked > 0, !hasConfidence {
            throw CloudError.badInput(.source("stray:\(directory)"), "--min-confidence needs confidence/, which this export does not have")
        }
        let minimum = options.minConfidence ?? (hasConfidence ? 1 : 0)
        // Real exports can lack some frames' depth (a copy trimmed or published without a few):
        // each depth file is matched to its pose and video frame by the number it is named by,
        // and what is absent is said.
        var frames: [Frame] = []
        var missing: [Int] = []
        for (videoIndex, entry) in odometry.entries.enumerated() {
            let stem = String(format: "%06d", entry.frame)
            let png = DatasetFiles.join(depthFolder, stem + ".png")
            let npy = DatasetFiles.join(depthFolder, stem + ".npy")
            guard let depth = [png, npy].first(where: DatasetFiles.isFile) else {
                missing.append(entry.frame)
                continue
            }
            var mask: ConfidenceMask?
            if minimum > 0 {
                let confidence = DatasetFiles.join(confidenceFolder, stem + ".png")
                try DatasetFiles.requireFile(confidence, "the confidence map of frame \(stem), which --min-confidence reads")
                mask = ConfidenceMask(path: confidence, minimum: minimum, mediumFrom: 1, highFrom: 2)
            }
            frames.append(Frame(videoIndex: videoIndex, depthPath: depth, confidence: mask, pose: entry.pose, timestamp: entry.timestamp))
        }
        guard !frames.isEmpty else {
            throw CloudError.badInput(
                .source("stray:\(directory)"),
                "none of odometry.csv's \(odometry.entries.count) frames has its depth (depth/NNNNNN.png or .npy)")
        }
        var warnings: [CloudWarning] = []
        if !missing.isEmpty {
            let (noun, verb) = missing.count == 1 ? ("frame", "has") : ("frames", "have")
            warnings.append(
                CloudWarning(
                    .source("stray:\(directory)"),
                    "\(noun) \(FrameNumberRanges.text(missing)) of \(odometry.entries.count) \(verb) no depth (depth/NNNNNN.png or .npy); left out"
                ))
        }
        if options.minConfidence == nil {
            warnings.append(
                CloudWarning(
                    .source("stray:\(directory)"),
                    hasConfidence
                        ? "depth of low ARKit confidence dropped, as Stray's own viewer does (\(option: "min-confidence", "0") keeps it, 2 keeps high only)"
                        : "no confidence/; every depth pixel is kept"))
        }
        self.frames = frames
        self.warnings = warnings
        frameCount = frames.count
        listed = odometry.entries.count
    }

    public func nextFrame() throws -> CapturedFrame? {
        guard next < frames.count else { return nil }
        let frame = frames[next]
        let origin = frame.depthPath
        let bytes = try InputFile.readAll(origin, role: "a depth frame", limit: ImageFile.maxFileBytes)
        let npy = origin.hasSuffix(".npy")
        let size: ImageSize
        if npy {
            let layout = try NPYDepth.layout(bytes, origin: origin)
            size = ImageSize(width: layout.width, height: layout.height)
        } else {
            let header = try ImageFile.header(bytes, origin: origin)
            size = ImageSize(width: header.width, height: header.height)
        }
        // Decoding holds the depth file, a PNG's decoded samples, and the video decoder's reference frames.
        try FrameMemory.require(
            depth: size, rawBytesPerSample: 2, colorBytes: video.frameBytes,
            decodingBytes: bytes.count + (npy ? 0 : 2 * size.width * size.height) + video.decoderBytes,
            color: ImageSize(width: video.width, height: video.height), about: .file(origin))
        // Past the video frames of frames left out for want of depth.
        while video.delivered < frame.videoIndex {
            guard try video.next() != nil else { break }
        }
        // The video's next frame and the depth file decode at once (HEVC and zlib, one core each).
        let (color, decodedDepth) = try bothAtOnce(
            { try self.video.next() },
            {
                npy
                    ? try NPYDepth.plane(bytes, origin: origin, unitsPerMetre: Self.unitsPerMetre)
                    : try DatasetDepth.plane(
                        ImageFile.decode(bytes, origin: origin), encoding: .standard, unitsPerMetre: Self.unitsPerMetre,
                        origin: origin)
            })
        guard let color else {
            throw CloudError.badInput(.file(video.path), "the video ends after \(video.delivered) frame(s); odometry.csv has \(listed)")
        }
        var depth = decodedDepth
        try frame.confidence?.apply(to: &depth)
        next += 1
        return CapturedFrame(depth: depth, color: color, intrinsics: intrinsics, pose: frame.pose, timestamp: frame.timestamp)
    }
}
