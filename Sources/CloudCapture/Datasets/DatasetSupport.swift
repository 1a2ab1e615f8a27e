import CloudCore
import CloudImages
import Foundation
import SafeIO

/// How a dataset's 16-bit depth file stores its samples (`--depth-encoding`, `rgbd:` only).
public enum DepthFileEncoding: String, Equatable, Sendable, CaseIterable {
    /// Integer units along the optical axis, `--depth-scale` of them per metre; 0 is no depth.
    case standard
    /// NYU Depth v2's raw dumps: the Kinect's 11-bit disparity, converted by NYU's calibration.
    case nyu
    /// SUN RGB-D: millimetres rotated left by 3 bits within the 16-bit sample.
    case sun
}

/// What the command line adds to a source spec (`--intrinsics`, `--depth-scale`, `--depth-encoding`).
/// Each dataset kind has its own defaults; a flag the kind cannot use is refused, never ignored.
public struct SourceOptions: Equatable, Sendable {
    /// A calibration file `IntrinsicsFile` reads (Open3D JSON, PCL grabber XML, cloudgen JSON).
    public var intrinsicsPath: String?
    /// Raw depth units per metre (1000 for millimetres, 5000 for TUM).
    public var depthUnitsPerMetre: Double?
    public var depthEncoding: DepthFileEncoding
    /// The lowest ARKit depth confidence kept (0 low, 1 medium, 2 high), for phone exports that
    /// store a confidence map beside the depth; nil keeps every pixel.
    public var minConfidence: Int?
    /// Photos with relative depth: a pixel's true distance, which scales the depth to metres.
    public var knownDistance: KnownDistance?
    /// Photos: keep only the subject that the portrait effects matte marks.
    public var matte: Bool

    public init(
        intrinsicsPath: String? = nil, depthUnitsPerMetre: Double? = nil, depthEncoding: DepthFileEncoding = .standard,
        minConfidence: Int? = nil, knownDistance: KnownDistance? = nil, matte: Bool = false
    ) {
        self.intrinsicsPath = intrinsicsPath
        self.depthUnitsPerMetre = depthUnitsPerMetre
        self.depthEncoding = depthEncoding
        self.minConfidence = minConfidence
        self.knownDistance = knownDistance
        self.matte = matte
    }

    /// Refuses options the spec's kind has no use for, and a depth scale that is not a positive number.
    public func check(for spec: SourceSpec) throws {
        // One refusal at a time, always in this order.
        let given: [(SourceKind.Option, Bool)] = [
            (.intrinsics, intrinsicsPath != nil), (.depthScale, depthUnitsPerMetre != nil), (.depthEncoding, depthEncoding != .standard),
            (.knownDistance, knownDistance != nil), (.matte, matte), (.minConfidence, minConfidence != nil)
        ]
        for (option, isGiven) in given where isGiven && !spec.sourceKind.options.contains(option) {
            let takers = SourceKind.taking(option).map { "\($0.name):" }.joined(separator: ", ")
            throw CloudError.badInput("\(option: option.rawValue) does not apply to \(spec.kind): sources (only to \(takers))")
        }
        if let minConfidence {
            guard (0...2).contains(minConfidence) else {
                throw CloudError.badInput(
                    "\(option: "min-confidence") must be 0 (keep all), 1 (medium and high) or 2 (high only), not \(minConfidence)")
            }
        }
        if let units = depthUnitsPerMetre {
            guard DepthEncoding.isUsableScale(units) else {
                throw CloudError.badInput("\(option: "depth-scale") must be a positive number of raw units per metre, not \(units)")
            }
            if depthEncoding == .nyu {
                throw CloudError.badInput(
                    "\(option: "depth-scale") does not apply to \(option: "depth-encoding", "nyu") (NYU's raw Kinect disparity converts to metres by its own formula)"
                )
            }
        }
    }
}

/// A source reading a dataset or recording from disk: a known number of frames, opened only after
/// the layout, the index files and every frame file's presence were checked. Its `warnings` say
/// what was assumed because neither the files nor a flag said it (default intrinsics, a default
/// depth scale) or what a flag replaced.
public protocol DatasetSource: DepthSource {
    var frameCount: Int { get }
}

/// Where a frame's intrinsics come from.
enum IntrinsicsOrigin {
    /// Values at a known reference size (a dataset's documented default).
    case fixed(CameraIntrinsics)
    /// A calibration file; PCL's XML names no size, so it is taken at the depth image's size.
    case file(IntrinsicsFile)

    func intrinsics(depthWidth: Int, depthHeight: Int) throws -> CameraIntrinsics {
        switch self {
        case .fixed(let k): return k
        case .file(let file): return try file.intrinsics(forDepthWidth: depthWidth, height: depthHeight)
        }
    }
}

/// One frame of a dataset, located and checked at open time, read when it is delivered.
struct DatasetFrame {
    /// The rate assumed for recordings that carry no times (Redwood folders, Record3D exports
    /// without `fps`): Kinect-class cameras deliver 30 frames a second. A frame's timestamp stays
    /// seconds, as `RGBDFrame` promises, so that a stream pushes a recording at its pace.
    static let nominalFrameRate = 30.0

    var depthPath: String
    var colorPath: String?
    var intrinsics: IntrinsicsOrigin
    var depthEncoding: DepthFileEncoding
    var unitsPerMetre: Double
    var pose: Pose?
    var timestamp: Double
    /// Depth pixels below a confidence level are dropped (phone exports).
    var confidence: ConfidenceMask?

    func read() throws -> CapturedFrame {
        // The files are read whole, so their sizes count first; then the headers say what
        // decoding and the rest of the capture will hold, before any pixel buffer exists.
        let depthFile = try InputFile(depthPath, limit: ImageFile.maxFileBytes)
        let colorFile = try colorPath.map { try InputFile($0, limit: ImageFile.maxFileBytes) }
        let fileBytes = depthFile.size + (colorFile?.size ?? 0)
        try MemoryBudget.require(fileBytes, for: "reading the frame's image files", about: .file(depthPath))
        let depthBytes = try depthFile.readAll()
        let colorBytes = try colorFile.map { (path: $0.path, bytes: try $0.readAll()) }
        let depthHeader = try ImageFile.header(depthBytes, origin: depthPath)
        let colorHeader = try colorBytes.map { try ImageFile.header($0.bytes, origin: $0.path) }
        try requireMemory(depth: depthHeader, color: colorHeader, fileBytes: fileBytes)

        // Decoding is most of a frame's cost (zlib or JPEG, one core each): both images at once.
        let (depth, color) = try bothAtOnce(
            {
                try DatasetDepth.plane(
                    ImageFile.decode(depthBytes, origin: depthPath), encoding: depthEncoding,
                    unitsPerMetre: unitsPerMetre, origin: depthPath)
            },
            {
                try colorBytes.map { c in try DatasetFrame.colorPlane(ImageFile.decode(c.bytes, origin: c.path), origin: c.path) }
            })
        var kept = depth
        try confidence?.apply(to: &kept)
        let k = try intrinsics.intrinsics(depthWidth: depth.width, depthHeight: depth.height)
        return CapturedFrame(depth: kept, color: color, intrinsics: k, pose: pose, timestamp: timestamp)
    }

    /// The frame's whole capture (`FrameMemory`): the raw plane is 16-bit, or Float32 metres for
    /// NYU; decoding holds the files, the decoded samples, and a converted copy of a color image
    /// that is not already 8-bit RGB.
    private func requireMemory(depth: ImageHeader, color: ImageHeader?, fileBytes: Int) throws {
        let colorPixels = color.map { $0.width * $0.height } ?? 0
        let colorConverted = color.map { $0.channels == 3 && $0.bitDepth == 8 ? 0 : colorPixels * 3 } ?? 0
        try FrameMemory.require(
            depth: ImageSize(width: depth.width, height: depth.height),
            rawBytesPerSample: depthEncoding == .nyu ? 4 : 2,
            colorBytes: colorPixels * 3,
            decodingBytes: fileBytes + depth.decodedBytes + (color?.workingBytes ?? 0) + colorConverted,
            color: color.map { ImageSize(width: $0.width, height: $0.height) }, about: .file(depthPath))
    }

    /// Any decoded image as RGB8: gray is repeated into r, g and b, alpha dropped, 16 bits rounded to 8.
    static func colorPlane(_ image: DecodedImage, origin: String) throws -> CapturedFrame.Color {
        let rgb = try image.colorImage(origin: origin)
        return CapturedFrame.Color(width: rgb.width, height: rgb.height, layout: .rgb8, planes: [rgb.rgb])
    }
}

/// Frames handed out in order; what every dataset source's `nextFrame()` does.
struct FrameQueue {
    let frames: [DatasetFrame]
    private var next = 0

    init(_ frames: [DatasetFrame]) { self.frames = frames }

    mutating func pop() throws -> CapturedFrame? {
        guard next < frames.count else { return nil }
        next += 1
        return try frames[next - 1].read()
    }
}

/// File-system checks shared by the dataset sources; every failure names the path.
enum DatasetFiles {
    static func join(_ directory: String, _ name: String) -> String {
        URL(fileURLWithPath: directory).appendingPathComponent(name).path
    }

    static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    static func isFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }

    /// `kind` and `layout` describe what the folder should look like, for the message.
    static func requireDirectory(_ path: String, kind: String, layout: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CloudError.badInput(.source("\(kind):\(path)"), "no such folder (expected \(layout))")
        }
        guard isDirectory.boolValue else { throw CloudError.badInput(.source("\(kind):\(path)"), "not a folder (expected \(layout))") }
    }

    /// A frame file must exist before the source opens, so that a gap in a sequence is reported
    /// before any frame has been written. `what` says which file it is ("the depth image listed in ...").
    static func requireFile(_ path: String, _ what: String) throws {
        guard isFile(path) else {
            throw CloudError.badInput(.file(path), "\(isDirectory(path) ? "is a folder, not a file" : "no such file") (\(what))")
        }
    }

    /// Names of the regular, non-hidden files in a folder with one of `extensions` (lower case),
    /// sorted by name: dataset frames are numbered with leading zeros, so name order is time order.
    static func files(in directory: String, extensions: Set<String>) throws -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw CloudError.badInput(.file(directory), "cannot list the folder: \(error.localizedDescription)")
        }
        return names.filter { name in
            !name.hasPrefix(".") && extensions.contains((name as NSString).pathExtension.lowercased())
                && isFile(join(directory, name))
        }.sorted()
    }

    /// Calibration named by `--intrinsics`, read now so that a bad file fails before any frame.
    static func intrinsicsFile(_ options: SourceOptions) throws -> IntrinsicsFile? {
        try options.intrinsicsPath.map { try IntrinsicsFile.read($0) }
    }
}
