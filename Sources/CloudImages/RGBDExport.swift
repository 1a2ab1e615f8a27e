import CloudCore
import Foundation
import SafeIO

/// Writes frames as an RGBD image folder that Open3D, Redwood- and TUM-style tools read
/// (`--rgbd DIR`), in the layout the `redwood:` source reads back:
///
///     DIR/color/000000.png        8-bit RGB at the depth map's size: the colors the cloud took
///     DIR/depth/000000.png        16-bit depth in millimetres, 0 where there is none
///     DIR/camera_intrinsic.json   Open3D PinholeCameraIntrinsic JSON, scaled to the depth size
///     DIR/trajectory.log          camera-to-world poses, when the source knows them
///
/// Color is written at the depth resolution, sampled exactly as back-projection samples it, so the
/// pair is registered pixel for pixel and a cloud made from it equals the original but for depth
/// rounded to the millimetre. The folder is staged and appears only when `finish()` succeeds.
public final class RGBDExporter {
    /// zlib level 1: a quarter of level 6's time (9 vs 30 ms for a 640x480 depth PNG, 20 vs 80 ms
    /// for color) for files 15-30% larger; an export should not dominate a capture.
    static let compressionLevel = 1
    /// The SUB row filter alone, as TUM's and Redwood's PNGs are stored: libpng's adaptive choice
    /// picks mostly Paeth rows, which Debian's libpng unfilters without SIMD at about three times
    /// the cost of inflating them, so every later read of the export would pay for it.
    static let fastFilter = true

    public let directory: String
    private let folder: StagedDirectory
    private var intrinsics: CameraIntrinsics?
    private var poses: [Pose] = []
    private var frames = 0
    /// Depth beyond 65.535 m does not fit in 16-bit millimetres; such pixels are written as 0.
    public private(set) var depthClipped = 0

    public init(directory: String) throws {
        self.directory = directory
        folder = try StagedDirectory(directory, what: "RGBD export")
        try folder.makeSubfolder("color")
        try folder.makeSubfolder("depth")
    }

    /// `frame` must carry color at its depth map's size (`RGBDFrame(decoding:colorAtDepthResolution: true)`).
    public func write(_ frame: RGBDFrame) throws {
        try folder.naming { try writeFrame(frame) }
    }

    private func writeFrame(_ frame: RGBDFrame) throws {
        let depth = frame.depth
        let k = frame.intrinsics.scaled(toWidth: depth.width, height: depth.height)
        if let intrinsics, intrinsics != k {
            throw CloudError.badInput("\(directory): frame \(frames) has other intrinsics than frame 0; one folder holds one camera")
        }
        intrinsics = k
        let name = String(format: "%06d.png", frames)
        var clipped = 0
        let millimetres = depth.metres.map { z -> UInt16 in
            let mm = (Double(z) * 1000).rounded()
            guard mm <= Double(UInt16.max) else {
                clipped += 1
                return 0
            }
            return UInt16(mm)
        }
        depthClipped += clipped
        try PNGWriter.write(
            gray16: millimetres, width: depth.width, height: depth.height, to: "\(folder.staging.path)/depth/\(name)",
            compressionLevel: Self.compressionLevel, fastFilter: Self.fastFilter)
        if let color = frame.color {
            guard color.width == depth.width, color.height == depth.height else {
                throw CloudError.badInput(
                    "\(directory): color \(color.width)x\(color.height) is not at the depth size \(depth.width)x\(depth.height)")
            }
            try PNGWriter.write(
                rgb: color, to: "\(folder.staging.path)/color/\(name)", compressionLevel: Self.compressionLevel,
                fastFilter: Self.fastFilter)
        }
        if let pose = frame.pose { poses.append(pose) }
        frames += 1
    }

    /// Writes the intrinsics and, when every frame had a pose, the trajectory, and moves the folder
    /// into place. Call once, after everything else succeeded.
    public func finish() throws {
        guard intrinsics != nil else { return }
        try folder.naming { try writeIndexFiles() }
        try folder.commit()
    }

    private func writeIndexFiles() throws {
        guard let k = intrinsics else { return }
        let matrix = [k.fx, 0, 0, 0, k.fy, 0, k.cx, k.cy, 1].map { String($0) }.joined(separator: ", ")
        let json =
            "{\n\t\"width\" : \(k.referenceWidth),\n\t\"height\" : \(k.referenceHeight),\n\t\"intrinsic_matrix\" : [ \(matrix) ]\n}\n"
        try AtomicFile.write(Data(json.utf8), to: "\(folder.staging.path)/camera_intrinsic.json")
        if poses.count == frames {
            try AtomicFile.write(Data(TrajectoryText.redwoodLog(poses).utf8), to: "\(folder.staging.path)/trajectory.log")
        }
    }
}
