import CloudArchives
import CloudCore
import CloudImages
import Foundation
import SafeIO

/// `record3d:DIR` reads the folder of a Record3D "EXR + JPG" export, as Record3D's author describes
/// it in the record3d repository's issues (Docs/formats.md cites them):
///
///     metadata.json      intrinsics at the color images' size, one camera-to-world pose per frame
///     rgb/N.jpg          frame N's color image (N = 0, 1, 2, ...)
///     depth/N.exr        its depth: one float32 channel (R) of metres, at the depth map's size
///
/// Frame N is pose N, matched by the number its files are named by: an export that lacks some
/// frames' files (real ones do) gives the others, with a warning naming the frames left out. Its
/// intrinsics are scaled from the color images' size to the depth map's, and its pose is turned
/// from OpenGL's camera axes to cloudgen's. The world is Record3D's: the first
/// camera's, not gravity-aligned (Record3D starts every recording at the identity), so no up is known.
///
/// Record3D's own `.r3d` format (a zip of `metadata` and `rgbd/N.jpg`, `N.depth`, `N.conf`) stores
/// depth LZFSE-compressed, for which Debian has no library: a `.r3d` file, or its unzipped folder,
/// is refused with a message that says to export "EXR + JPG" instead.
public final class Record3DSource: DatasetSource {
    static let layout = "metadata.json, rgb/N.jpg and depth/N.exr: Record3D's \"EXR + JPG\" export"
    /// The channel Record3D writes depth into.
    static let depthChannel = "R"

    public let directory: String
    public let frameCount: Int
    public let knowsPose = true
    /// Which frames the export lacks files for, when it lacks some.
    public let warnings: [CloudWarning]
    public var name: String { "record3d:\(directory)" }

    private let frames: [Record3DFrame]
    private var next = 0

    public init(directory: String) throws {
        self.directory = directory
        try Self.refuseR3D(directory)
        try DatasetFiles.requireDirectory(directory, kind: "record3d", layout: Self.layout)
        let metadataPath = DatasetFiles.join(directory, "metadata.json")
        try DatasetFiles.requireFile(metadataPath, "Record3D's metadata; expected \(Self.layout)")
        let metadata = try Record3DMetadata(path: metadataPath)
        let depthFolder = DatasetFiles.join(directory, "depth")
        let colorFolder = DatasetFiles.join(directory, "rgb")
        for folder in [depthFolder, colorFolder] where !DatasetFiles.isDirectory(folder) {
            throw CloudError.badInput(
                .source("record3d:\(directory)"), "no \((folder as NSString).lastPathComponent)/ folder (expected \(Self.layout))")
        }
        // Real exports can lack some frames' files (a copy trimmed or published without a few):
        // each file is matched to its pose by the number it is named by, and what is absent is said.
        let poseCount = metadata.poses.count
        let depthFiles = try Self.framesFiles(in: depthFolder, extension: "exr", poses: poseCount, metadataPath)
        let colorFiles = try Self.framesFiles(in: colorFolder, extension: "jpg", poses: poseCount, metadataPath)
        let kept = metadata.poses.indices.filter { depthFiles[$0] != nil && colorFiles[$0] != nil }
        guard !kept.isEmpty else {
            throw CloudError.badInput(
                .source("record3d:\(directory)"),
                "none of metadata.json's \(poseCount) frames has both its depth map (depth/N.exr) and its color image (rgb/N.jpg)")
        }
        let noDepth = metadata.poses.indices.filter { depthFiles[$0] == nil }
        let noColor = metadata.poses.indices.filter { depthFiles[$0] != nil && colorFiles[$0] == nil }
        var warnings: [CloudWarning] = []
        for (missing, what) in [(noDepth, "no depth map (depth/N.exr)"), (noColor, "a depth map but no color image (rgb/N.jpg)")]
        where !missing.isEmpty {
            let (noun, verb) = missing.count == 1 ? ("frame", "has") : ("frames", "have")
            warnings.append(
                CloudWarning(
                    .source("record3d:\(directory)"), "\(noun) \(FrameNumberRanges.text(missing)) of \(poseCount) \(verb) \(what); left out"
                ))
        }
        self.warnings = warnings
        frames = kept.map { index in
            Record3DFrame(
                depthPath: DatasetFiles.join(depthFolder, depthFiles[index]!),
                colorPath: DatasetFiles.join(colorFolder, colorFiles[index]!),
                intrinsics: metadata.intrinsics, depthSize: metadata.depthSize, pose: metadata.poses[index],
                timestamp: Double(index) / metadata.frameRate)
        }
        frameCount = frames.count
    }

    public func nextFrame() throws -> CapturedFrame? {
        guard next < frames.count else { return nil }
        next += 1
        return try frames[next - 1].read()
    }

    /// The files of `folder` with the extension, by the frame number each is named by (`N.exr`, as
    /// Record3D names them): bad input naming the file when a name is not a frame number, two
    /// name one frame, or a number has no pose in metadata.json (at `metadataPath`).
    static func framesFiles(in folder: String, extension ext: String, poses: Int, _ metadataPath: String) throws -> [Int: String] {
        var files: [Int: String] = [:]
        for name in try DatasetFiles.files(in: folder, extensions: [ext]) {
            let path = DatasetFiles.join(folder, name)
            let stem = (name as NSString).deletingPathExtension
            guard !stem.isEmpty, stem.allSatisfy(\.isASCII), stem.allSatisfy(\.isNumber), let number = Int(stem) else {
                throw CloudError.badInput(.file(path), "not named by a frame number (Record3D names frame N's files N.exr and N.jpg)")
            }
            guard number < poses else {
                throw CloudError.badInput(
                    .file(path),
                    "frame \(number), but \(metadataPath) holds \(poses) poses (frames 0-\(poses - 1)); Record3D writes a pose per frame")
            }
            if let other = files[number] {
                throw CloudError.badInput(.file(path), "a second file for frame \(number), with \(other)")
            }
            files[number] = name
        }
        return files
    }

    /// A `.r3d` (a zip with `metadata` and `rgbd/N.depth`), or such a zip unpacked into a folder.
    static func refuseR3D(_ path: String) throws {
        let refusal = CloudError.badInput(
            .source("record3d:\(path)"),
            "a Record3D .r3d recording, whose depth is LZFSE-compressed, which cloudgen cannot read (Debian ships no LZFSE library); export the recording from Record3D as \"EXR + JPG\" and give that folder"
        )
        if DatasetFiles.isFile(path) {
            // Any file is refused below as not a folder; only what it is decides the message.
            if let names = try? ZipMemberNames.read(path), isR3D(names) { throw refusal }
            return
        }
        guard DatasetFiles.isDirectory(path) else { return }
        let rgbd = DatasetFiles.join(path, "rgbd")
        let depths = (try? DatasetFiles.files(in: rgbd, extensions: ["depth"])) ?? []
        if DatasetFiles.isFile(DatasetFiles.join(path, "metadata")) && !depths.isEmpty { throw refusal }
    }

    /// The member names of a `.r3d`: `metadata` and depth frames in `rgbd/` (at the top, or under the
    /// one folder a re-zipped copy wraps them in).
    static func isR3D(_ names: [String]) -> Bool {
        let parts = names.map { $0.split(separator: "/").map(String.init) }
        func hasMetadata(_ prefix: [String]) -> Bool { parts.contains { $0 == prefix + ["metadata"] } }
        func hasDepth(_ prefix: [String]) -> Bool {
            parts.contains {
                $0.count == prefix.count + 2 && Array($0.prefix(prefix.count)) == prefix && $0[prefix.count] == "rgbd"
                    && $0.last!.hasSuffix(".depth")
            }
        }
        let tops = Set(parts.compactMap { $0.count > 1 ? $0[0] : nil })
        return (hasMetadata([]) && hasDepth([])) || tops.contains { hasMetadata([$0]) && hasDepth([$0]) }
    }
}

/// One frame of a Record3D export, located and checked at open time, read when it is delivered.
struct Record3DFrame {
    var depthPath: String
    var colorPath: String
    /// At the color images' size; scaled to the depth map's when the frame is read.
    var intrinsics: CameraIntrinsics
    var depthSize: (width: Int, height: Int)?
    var pose: Pose
    var timestamp: Double

    func read() throws -> CapturedFrame {
        // The files are read whole, so their sizes count first; then the headers say what
        // decoding and the rest of the capture will hold, before any pixel buffer exists.
        let depthFile = try InputFile(depthPath, limit: ImageFile.maxFileBytes)
        let colorFile = try InputFile(colorPath, limit: ImageFile.maxFileBytes)
        let fileBytes = depthFile.size + colorFile.size
        try MemoryBudget.require(fileBytes, for: "reading the frame's image files", about: .file(depthPath))
        let depthBytes = try depthFile.readAll()
        let colorBytes = try colorFile.readAll()
        let depthHeader = try EXRDepthFile.header(depthBytes, channel: Record3DSource.depthChannel, origin: depthPath)
        if let expected = depthSize, expected.width != depthHeader.width || expected.height != depthHeader.height {
            throw CloudError.badInput(
                .file(depthPath),
                "the depth map is \(depthHeader.width)x\(depthHeader.height), metadata.json says \(expected.width)x\(expected.height) (dw, dh)"
            )
        }
        let colorHeader = try ImageFile.header(colorBytes, origin: colorPath)
        let colorPixels = colorHeader.width * colorHeader.height
        let colorConverted = colorHeader.channels == 3 && colorHeader.bitDepth == 8 ? 0 : colorPixels * 3
        try FrameMemory.require(
            depth: ImageSize(width: depthHeader.width, height: depthHeader.height), rawBytesPerSample: 4,
            colorBytes: colorPixels * 3,
            decodingBytes: fileBytes + depthHeader.decodedBytes + colorHeader.workingBytes + colorConverted,
            color: ImageSize(width: colorHeader.width, height: colorHeader.height), about: .file(depthPath))

        let (depth, color) = try bothAtOnce(
            {
                let decoded = try EXRDepthFile.decode(depthBytes, channel: Record3DSource.depthChannel, origin: depthPath)
                // The plane is little-endian float32 metres, which is what the host holds (x86-64, arm64).
                let data = decoded.samples.withUnsafeBytes { [UInt8]($0) }
                return CapturedFrame.Depth(width: decoded.header.width, height: decoded.header.height, encoding: .depthFloat32, data: data)
            },
            {
                try DatasetFrame.colorPlane(ImageFile.decode(colorBytes, origin: colorPath), origin: colorPath)
            })
        let k = intrinsics.scaled(toWidth: depth.width, height: depth.height)
        return CapturedFrame(depth: depth, color: color, intrinsics: k, pose: pose, timestamp: timestamp)
    }
}
