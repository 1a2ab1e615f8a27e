import CloudCore
import Foundation

/// A recording of PCL's image grabber (`--source pclgrabber:DIR`): per frame `NAME.xml` (the
/// intrinsics and `z_multiplication_factor`, metres per depth unit), `NAME_depth.pclzf` and
/// `NAME_rgb.pclzf` (PCL's LZF-compressed raw frames), or the same frames as `NAME_depth.tiff`
/// and `NAME_rgb.tiff`. Frames are ordered by name (the grabber names them by capture time).
///
/// When a frame has both, the PCLZF pair is read: it is what the grabber recorded, the TIFFs are
/// conversions of it. The choice is per frame, so a folder may mix the two. A frame's XML is
/// required unless `--intrinsics` gives the calibration for all of them; `--depth-scale`
/// replaces the XML's depth factor. A recording without any `_rgb` file gives uncolored clouds;
/// one where only some frames have color is refused.
public final class PCLGrabberSource: DatasetSource {
    /// The file pair a frame is read from.
    public enum Storage: String, Sendable {
        case pclzf, tiff
    }

    public struct Frame: Equatable, Sendable {
        /// NAME, shared by the frame's files.
        public var name: String
        public var depthPath: String
        public var colorPath: String?
        public var xmlPath: String
        public var storage: Storage
    }

    /// PCL's grabber reads depth at a millimetre per unit when the XML gives no factor.
    public static let defaultUnitsPerMetre = 1000.0

    public let directory: String
    public let frames: [Frame]
    public let warnings: [CloudWarning]
    public let knowsPose = false
    public var frameCount: Int { frames.count }
    public var name: String { "pclgrabber:\(directory)" }

    private var queue: FrameQueue

    public init(directory: String, options: SourceOptions = SourceOptions()) throws {
        self.directory = directory
        let layout = "NAME.xml with NAME_depth.pclzf + NAME_rgb.pclzf or NAME_depth.tiff + NAME_rgb.tiff per frame"
        try DatasetFiles.requireDirectory(directory, kind: "pclgrabber", layout: layout)
        let frames = try Self.discover(directory, layout: layout)
        let colored = frames.filter { $0.colorPath != nil }
        if !colored.isEmpty, let bare = frames.first(where: { $0.colorPath == nil }) {
            let missing = DatasetFiles.join(directory, "\(bare.name)_rgb.\(bare.storage.rawValue)")
            throw CloudError.badInput(
                .file(missing), "no such file; \(colored.count) of the \(frames.count) frames have color, so every frame needs it")
        }
        self.frames = frames

        var warnings: [CloudWarning] = []
        let source = CloudError.Subject.source("pclgrabber:\(directory)")
        if colored.isEmpty {
            warnings.append(CloudWarning(source, "no _rgb files; the clouds have no color"))
        }
        let given = try DatasetFiles.intrinsicsFile(options)
        if let given, frames.contains(where: { DatasetFiles.isFile($0.xmlPath) }) {
            warnings.append(CloudWarning(source, "using \(option: "intrinsics", file: given.path) instead of each frame's XML"))
        }
        let times = PCLGrabberTimes.seconds(names: frames.map(\.name))
        var plans: [DatasetFrame] = []
        for (i, frame) in frames.enumerated() {
            let file: IntrinsicsFile
            if let given {
                file = given
            } else {
                guard DatasetFiles.isFile(frame.xmlPath) else {
                    throw CloudError.badInput(
                        .file(frame.xmlPath), "no such file; the frame's calibration is needed (or pass \(option: "intrinsics", "FILE"))")
                }
                file = try IntrinsicsFile.read(frame.xmlPath)
            }
            let units: Double
            if let given = options.depthUnitsPerMetre ?? file.depthUnitsPerMetre {
                units = given
            } else {
                units = Self.defaultUnitsPerMetre
                let note = CloudWarning(
                    source,
                    "\(file: file.path) gives no z_multiplication_factor; depth assumed to be in millimetres, as PCL's grabber assumes (pass \(option: "depth-scale", "S") otherwise)"
                )
                if !warnings.contains(note) { warnings.append(note) }
            }
            plans.append(
                DatasetFrame(
                    depthPath: frame.depthPath, colorPath: frame.colorPath, intrinsics: .file(file),
                    depthEncoding: .standard, unitsPerMetre: units, pose: nil, timestamp: times[i]))
        }
        queue = FrameQueue(plans)
        self.warnings = warnings
    }

    public func nextFrame() throws -> CapturedFrame? {
        try queue.pop()
    }

    /// The frames of the folder, by name: every `NAME_depth.{pclzf,tiff,tif}` is one.
    static func discover(_ directory: String, layout: String) throws -> [Frame] {
        let names = Set(try DatasetFiles.files(in: directory, extensions: ["pclzf", "tiff", "tif", "xml"]))
        func existing(_ candidates: [String]) -> String? { candidates.first(where: names.contains) }
        var stems = Set<String>()
        for name in names {
            for suffix in ["_depth.pclzf", "_depth.tiff", "_depth.tif"] where name.hasSuffix(suffix) {
                stems.insert(String(name.dropLast(suffix.count)))
            }
        }
        guard !stems.isEmpty else {
            throw CloudError.badInput(.source("pclgrabber:\(directory)"), "no *_depth.pclzf or *_depth.tiff files (expected \(layout))")
        }
        return stems.sorted().map { stem in
            let path = { DatasetFiles.join(directory, $0) }
            if let depth = existing(["\(stem)_depth.pclzf"]) {
                return Frame(
                    name: stem, depthPath: path(depth), colorPath: existing(["\(stem)_rgb.pclzf"]).map(path),
                    xmlPath: path("\(stem).xml"), storage: .pclzf)
            }
            let depth = existing(["\(stem)_depth.tiff", "\(stem)_depth.tif"])!
            return Frame(
                name: stem, depthPath: path(depth), colorPath: existing(["\(stem)_rgb.tiff", "\(stem)_rgb.tif"]).map(path),
                xmlPath: path("\(stem).xml"), storage: .tiff)
        }
    }
}
