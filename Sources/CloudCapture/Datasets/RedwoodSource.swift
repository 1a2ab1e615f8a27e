import CloudCore
import Foundation

/// An RGBD sequence in the Redwood / Open3D layout (`--source redwood:DIR`), what Open3D's
/// reconstruction system and `cloudgen capture --rgbd` write:
///
///     color/    JPEG or PNG images       depth/   16-bit PNGs, 1000 units per metre
///     camera_intrinsic.json (or camera_primesense.json): Open3D PinholeCameraIntrinsic
///     trajectory.log (optional): one camera-to-world pose per frame
///
/// The i-th color and i-th depth image by name form frame i, as Open3D pairs them; the two
/// folders must hold as many images each. `--intrinsics` replaces the folder's calibration (with
/// a note) and `--depth-scale` the 1000 units per metre. With a trajectory the frames carry its
/// poses, and it must hold exactly one pose per frame.
public final class RedwoodSource: DatasetSource {
    /// Looked for in this order: the name Open3D's reconstruction system writes, then the one its
    /// sample data uses.
    public static let intrinsicsFileNames = ["camera_intrinsic.json", "camera_primesense.json"]
    public static let trajectoryFileName = "trajectory.log"
    public static let defaultUnitsPerMetre = 1000.0
    static let colorExtensions: Set<String> = ["jpg", "jpeg", "png"]
    static let depthExtensions: Set<String> = ["png"]

    public let directory: String
    public let frameCount: Int
    public let knowsPose: Bool
    public let warnings: [CloudWarning]
    public var name: String { "redwood:\(directory)" }

    private var queue: FrameQueue

    public init(directory: String, options: SourceOptions = SourceOptions()) throws {
        self.directory = directory
        let layout = "color/, depth/, camera_intrinsic.json, optional trajectory.log"
        try DatasetFiles.requireDirectory(directory, kind: "redwood", layout: layout)
        func folder(_ name: String, _ extensions: Set<String>, _ what: String) throws -> [String] {
            let path = DatasetFiles.join(directory, name)
            guard DatasetFiles.isDirectory(path) else {
                throw CloudError.badInput(.source("redwood:\(directory)"), "no \(name)/ folder (expected \(layout))")
            }
            let files = try DatasetFiles.files(in: path, extensions: extensions)
            guard !files.isEmpty else {
                throw CloudError.badInput(.file(path), "holds no \(what) (\(extensions.sorted().joined(separator: ", ")) files)")
            }
            return files.map { DatasetFiles.join(path, $0) }
        }
        let colors = try folder("color", Self.colorExtensions, "color images")
        let depths = try folder("depth", Self.depthExtensions, "depth images")
        guard colors.count == depths.count else {
            throw CloudError.badInput(
                .source("redwood:\(directory)"),
                "color/ holds \(colors.count) images and depth/ \(depths.count); each frame needs one of each")
        }

        var warnings: [CloudWarning] = []
        let folderCalibration = Self.intrinsicsFileNames.map { DatasetFiles.join(directory, $0) }.first(where: DatasetFiles.isFile)
        let file: IntrinsicsFile
        if let given = try DatasetFiles.intrinsicsFile(options) {
            file = given
            if let folderCalibration {
                warnings.append(
                    CloudWarning(
                        .source("redwood:\(directory)"),
                        "using \(option: "intrinsics", file: given.path) instead of \(file: folderCalibration)"))
            }
        } else if let folderCalibration {
            file = try IntrinsicsFile.read(folderCalibration)
        } else {
            throw CloudError.badInput(
                .source("redwood:\(directory)"),
                "no \(Self.intrinsicsFileNames.joined(separator: " or ")) in the folder; pass \(option: "intrinsics", "FILE")")
        }

        let trajectory = DatasetFiles.join(directory, Self.trajectoryFileName)
        var poses: [Pose]?
        if DatasetFiles.isFile(trajectory) {
            let read = try TrajectoryLog.read(trajectory, frames: depths.count)
            guard read.count == depths.count else {
                throw CloudError.badInput(
                    .file(trajectory), "\(read.count) poses for \(depths.count) frames; a trajectory holds one pose per frame")
            }
            poses = read
        }
        knowsPose = poses != nil
        frameCount = depths.count

        let units = options.depthUnitsPerMetre ?? file.depthUnitsPerMetre ?? Self.defaultUnitsPerMetre
        queue = FrameQueue(
            depths.indices.map { i in
                DatasetFrame(
                    depthPath: depths[i], colorPath: colors[i], intrinsics: .file(file), depthEncoding: .standard,
                    unitsPerMetre: units, pose: poses?[i], timestamp: Double(i) / DatasetFrame.nominalFrameRate)
            })
        self.warnings = warnings
    }

    public func nextFrame() throws -> CapturedFrame? {
        try queue.pop()
    }
}
