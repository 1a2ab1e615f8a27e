import CloudCore
import Foundation
import SafeIO

/// A TUM RGB-D benchmark sequence (`--source tum:DIR`): `rgb.txt` and `depth.txt` list
/// "timestamp filename" lines (`#` starts a comment), filenames relative to DIR. The two cameras
/// are not triggered together, so each depth frame is paired with the color frame nearest in time,
/// as a capture synchroniser pairs depth with video; a depth frame with no color frame within
/// 20 ms is an association gap, which is an error naming the depth file.
///
/// With `groundtruth.txt` beside the lists, each depth frame takes the ground-truth pose nearest
/// in time, within 20 ms, as the TUM tools associate them, so that `--fuse` and `--frame world`
/// work. A frame with no pose that near keeps its place in camera-frame captures; a posed capture
/// leaves it out, and the source says how many there are when it opens.
///
/// Depth is 16-bit PNG at 5000 units per metre (`--depth-scale` overrides). The intrinsics are
/// `--intrinsics FILE`, else TUM's documented default for the ROS OpenNI driver (fx = fy = 525,
/// cx = 319.5, cy = 239.5 at 640x480, Open3D's PrimeSenseDefault), with a note saying so: the
/// freiburg1/2/3 sequences each have their own calibration.
public final class TUMSource: DatasetSource {
    public struct Entry: Equatable, Sendable {
        /// Seconds, in the sequence's clock.
        public var timestamp: Double
        /// The file, resolved against the sequence's folder (lists name files inside it).
        public var path: String
    }

    /// A depth frame and the color frame delivered with it.
    public struct Pair: Equatable, Sendable {
        public var depth: Entry
        public var color: Entry
        /// |depth time - color time|, seconds.
        public var gap: Double { abs(depth.timestamp - color.timestamp) }
    }

    public static let defaultIntrinsics = CameraIntrinsics(
        fx: 525, fy: 525, cx: 319.5, cy: 239.5,
        referenceWidth: 640, referenceHeight: 480)
    public static let defaultUnitsPerMetre = 5000.0
    public static let maxAssociationGap = 0.020
    /// The index files of the longest TUM sequences are well under a megabyte.
    static let maxListBytes = 64 << 20

    public let directory: String
    /// The frames in time order.
    public let pairs: [Pair]
    public let warnings: [CloudWarning]
    /// Whether the sequence has a groundtruth.txt (whose poses may still miss some frames).
    public let knowsPose: Bool
    public var frameCount: Int { pairs.count }
    public var name: String { "tum:\(directory)" }

    private var queue: FrameQueue

    public init(directory: String, options: SourceOptions = SourceOptions()) throws {
        self.directory = directory
        let layout = "rgb.txt, depth.txt and the images they list, and optionally groundtruth.txt"
        try DatasetFiles.requireDirectory(directory, kind: "tum", layout: layout)
        let colorList = DatasetFiles.join(directory, "rgb.txt")
        let depthList = DatasetFiles.join(directory, "depth.txt")
        for list in [colorList, depthList] where !DatasetFiles.isFile(list) {
            throw CloudError.badInput(.file(list), "no such file (a tum: folder holds \(layout))")
        }
        let colors = try Self.readList(colorList, directory: directory)
        let depths = try Self.readList(depthList, directory: directory)
        guard !colors.isEmpty else { throw CloudError.badInput(.file(colorList), "lists no frames") }
        guard !depths.isEmpty else { throw CloudError.badInput(.file(depthList), "lists no frames") }
        let pairs = try Self.associate(depths: depths, colors: colors, depthList: depthList)
        for pair in pairs {
            try DatasetFiles.requireFile(pair.depth.path, "the depth image listed in \(depthList)")
            try DatasetFiles.requireFile(pair.color.path, "the color image listed in \(colorList)")
        }
        self.pairs = pairs

        var warnings: [CloudWarning] = []
        var poses: [Pose?] = pairs.map { _ in nil }
        let groundTruthPath = DatasetFiles.join(directory, TUMGroundTruth.fileName)
        knowsPose = DatasetFiles.isFile(groundTruthPath)
        if knowsPose {
            let groundTruth = try TUMGroundTruth(path: groundTruthPath)
            poses = pairs.map { groundTruth.pose(at: $0.depth.timestamp) }
            let unposed = zip(pairs, poses).filter { $0.1 == nil }.map(\.0.depth)
            if unposed.count == pairs.count {
                warnings.append(
                    CloudWarning(
                        .file(groundTruthPath),
                        "no pose within \(Int(TUMGroundTruth.maxGap * 1000)) ms of any depth frame (is it this sequence's?)"))
            } else if let first = unposed.first {
                warnings.append(
                    CloudWarning(
                        .file(groundTruthPath),
                        "\(unposed.count) of \(pairs.count) depth frames have no pose within \(Int(TUMGroundTruth.maxGap * 1000)) ms (the first at \(String(format: "%.6f", first.timestamp)) s, \((first.path as NSString).lastPathComponent)); \(switch: "fuse") and \(option: "frame", "world") leave them out"
                    ))
            }
        }
        let file = try DatasetFiles.intrinsicsFile(options)
        let intrinsics: IntrinsicsOrigin
        if let file {
            intrinsics = .file(file)
        } else {
            intrinsics = .fixed(Self.defaultIntrinsics)
            warnings.append(
                CloudWarning(
                    .source("tum:\(directory)"),
                    "intrinsics assumed to be TUM's default (fx = fy = 525, cx = 319.5, cy = 239.5 at 640x480); pass \(option: "intrinsics", "FILE") for the sequence's own calibration"
                ))
        }
        let units = options.depthUnitsPerMetre ?? file?.depthUnitsPerMetre ?? Self.defaultUnitsPerMetre
        queue = FrameQueue(
            zip(pairs, poses).map { pair, pose in
                DatasetFrame(
                    depthPath: pair.depth.path, colorPath: pair.color.path, intrinsics: intrinsics,
                    depthEncoding: .standard, unitsPerMetre: units, pose: pose, timestamp: pair.depth.timestamp)
            })
        self.warnings = warnings
    }

    public func nextFrame() throws -> CapturedFrame? {
        try queue.pop()
    }

    /// The entries of an index file, sorted by time (by line where times are equal).
    static func readList(_ path: String, directory: String) throws -> [Entry] {
        let data = Data(try InputFile.readAll(path, role: "the TUM index file", limit: maxListBytes))
        guard let text = String(data: data, encoding: .utf8) else { throw CloudError.badInput(.file(path), "not a text file") }
        var entries: [(entry: Entry, line: Int)] = []
        for (i, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            // "timestamp filename": the name is the rest of the line.
            let stamp = line.prefix { !$0.isWhitespace }
            let file = line.dropFirst(stamp.count).trimmingCharacters(in: .whitespaces)
            guard let t = Double(stamp), t.isFinite, !file.isEmpty else {
                throw CloudError.badInput(.file(path), "line \(i + 1): expected 'timestamp filename', found '\(line)'")
            }
            // Images live in the sequence's folder; a list naming a file elsewhere (an absolute
            // path, a ".." part) is refused, not followed, as a bundle's file names are.
            guard !file.hasPrefix("/"), !file.split(separator: "/").contains("..") else {
                throw CloudError.badInput(.file(path), "line \(i + 1): '\(file)' is not a path inside the sequence's folder")
            }
            let resolved = DatasetFiles.join(directory, file)
            entries.append((Entry(timestamp: t, path: resolved), i))
        }
        return entries.sorted { ($0.entry.timestamp, $0.line) < ($1.entry.timestamp, $1.line) }.map(\.entry)
    }

    /// Each depth frame with the color frame nearest in time (the earlier one on a tie). A color
    /// frame may serve two depth frames when the depth stream runs faster, as with a synchroniser.
    static func associate(depths: [Entry], colors: [Entry], depthList: String) throws -> [Pair] {
        try depths.map { depth in
            // `colors` is not empty (the caller checked), so there is a nearest one.
            let nearest = NearestInTime.index(in: colors, to: depth.timestamp, time: \.timestamp)!
            let pair = Pair(depth: depth, color: colors[nearest])
            if pair.gap > maxAssociationGap + NearestInTime.slack {
                let ms = String(format: "%.1f", pair.gap * 1000)
                throw CloudError.badInput(
                    .file(depth.path),
                    "association gap: the nearest color frame (\(pair.color.path)) is \(ms) ms away; tum: pairs depth and color within \(Int(maxAssociationGap * 1000)) ms (listed in \(depthList))"
                )
            }
            return pair
        }
    }
}
