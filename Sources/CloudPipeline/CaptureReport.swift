import CloudCapture
import CloudCore
import Foundation

/// `capture --json`: everything a script needs to trust the cloud — the camera model as actually
/// used (intrinsics scaled to each image), the depth format, the limits applied, what each stage
/// kept, the files written and the time each stage took.
public struct CaptureReport: Encodable {
    public struct Camera: Encodable {
        /// As the source gave them, at their reference dimensions.
        public var reference: CameraIntrinsics
        /// Scaled to the depth map: what back-projection used.
        public var depth: CameraIntrinsics
        /// Scaled to the color image, when there is one.
        @NullWhenAbsent public var color: CameraIntrinsics?
        public var depthFormat: String
        /// "absolute" (metres) or "relative" (dual-camera disparity without a known scale: the
        /// cloud's shape is right but its size is not).
        public var depthAccuracy: String
        public var metric: Bool
        /// Whether the lens distortion was corrected through its lookup table.
        public var distortionCorrected: Bool
        /// Raw units per metre for integer depth; absent for floating-point depth and disparity.
        @NullWhenAbsent public var depthUnitsPerMetre: Double?
        @NullWhenAbsent public var colorFormat: String?
    }

    public struct Range: Encodable {
        public var min: Float
        public var max: Float
    }

    public struct File: Encodable {
        public var path: String
        public var format: String
        public var bytes: Int
        public var points: Int
        /// The written points' axis-aligned box in metres; null when none is finite.
        @NullWhenAbsent public var bounds: Bounds?
    }

    public struct Bounds: Encodable {
        public var min: [Float]
        public var max: [Float]

        public init?(_ cloud: PointCloud) {
            guard let b = cloud.bounds else { return nil }
            min = [b.min.x, b.min.y, b.min.z]
            max = [b.max.x, b.max.y, b.max.z]
        }
    }

    public struct Stage: Encodable {
        public var stage: String
        public var milliseconds: Double

        public init(stage: String, milliseconds: Double) {
            self.stage = stage
            self.milliseconds = milliseconds
        }
    }

    public var source: String
    public var frame: OutputFrame
    /// Frames taken from the source.
    public var frames: Int
    /// Whether they were merged into one world-frame cloud.
    public var fused: Bool
    /// The first frame's camera model.
    public var camera: Camera
    /// nil: no limits, every valid depth pixel is kept.
    @NullWhenAbsent public var range: Range?
    public var counts: BackProjection.Counts
    public var files: [File]
    /// The RGBD image folder written with --rgbd.
    @NullWhenAbsent public var rgbdDirectory: String?
    /// The capture bundle written with --bundle.
    @NullWhenAbsent public var bundleDirectory: String?
    /// The PNGs written with --preview and --depth-image, in the order they were written.
    public var images: [String]
    public var timings: [Stage]
    public var totalMilliseconds: Double

    public init(
        source: String, frame: OutputFrame, frames: Int, fused: Bool, captured: CapturedFrame, rgbd: RGBDFrame, range: ClosedRange<Float>?,
        counts: BackProjection.Counts, files: [File], rgbdDirectory: String?, bundleDirectory: String?, images: [String],
        timings: [Stage], totalMilliseconds: Double
    ) {
        let k = rgbd.intrinsics
        camera = Camera(
            reference: k,
            depth: k.scaled(toWidth: rgbd.depth.width, height: rgbd.depth.height),
            color: captured.color.map { k.scaled(toWidth: $0.width, height: $0.height) },
            depthFormat: captured.depth.encoding.description,
            depthAccuracy: captured.depth.accuracy == .absolute ? "absolute" : "relative",
            metric: captured.depth.accuracy == .absolute,
            distortionCorrected: rgbd.distortion != nil,
            depthUnitsPerMetre: captured.depth.encoding.unitsPerMetre,
            colorFormat: captured.color.map { Self.describe($0.layout) })
        self.source = source
        self.frame = frame
        self.frames = frames
        self.fused = fused
        self.range = range.map { Range(min: $0.lowerBound, max: $0.upperBound) }
        self.counts = counts
        self.files = files
        self.rgbdDirectory = rgbdDirectory
        self.bundleDirectory = bundleDirectory
        self.images = images
        self.timings = timings
        self.totalMilliseconds = totalMilliseconds
    }

    public static func describe(_ layout: CapturedFrame.Color.Layout) -> String {
        switch layout {
        case .rgb8: return "rgb8"
        case .bgra8: return "bgra8"
        case .yuv420BiPlanar(let f): return "yuv420 \(f.range.rawValue) range \(f.matrix.rawValue)"
        }
    }

    /// The human form, one line per file after a line about the capture.
    public var summary: String {
        let taken = frames > 1 && fused ? "\(frames) frames, fused, " : ""
        let scale = camera.depthUnitsPerMetre.map { String(format: " %g/m", $0) } ?? ""
        // An unfused sequence writes one file per frame: each file's line gives its points.
        let what = frames > 1 && !fused ? "\(frames) frames, one file each," : "\(counts.points) points"
        var lines = [
            "\(what) from \(source) (\(taken)depth \(camera.depth.referenceWidth)x\(camera.depth.referenceHeight) \(camera.depthFormat)\(scale)"
                + (camera.color.map { ", color \($0.referenceWidth)x\($0.referenceHeight)" } ?? ", no color")
                + "), \(frame.rawValue) frame, \(String(format: "%.1f", totalMilliseconds)) ms"
        ]
        for f in files {
            lines.append("  wrote \(f.path) (\(f.format), \(f.points) points, \(f.bytes) bytes)")
        }
        lines += images.map { "  drew \($0)" }
        return lines.joined(separator: "\n")
    }
}
