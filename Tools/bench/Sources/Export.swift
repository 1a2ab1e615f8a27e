import CloudCore
import Foundation

/// What `open3d_bench.py` reads for one frame: the inputs Open3D needs (depth plane, RGB8 color,
/// intrinsics at both sizes) and our cloud, so that the two clouds can be compared point by point.
struct FrameMeta: Codable {
    var spec: String
    /// Intrinsics scaled to each image ({width, height, fx, fy, cx, cy}).
    var depth: CameraIntrinsics
    var color: CameraIntrinsics
    /// "uint16" (raw millimetres, as the camera stores them) or "float32" (metres).
    var depthDtype: String
    /// Open3D's depth_scale: stored units per metre.
    var depthScale: Double
    var depthFile: String
    var colorFile: String
    var cloudXyzFile: String
    var cloudRgbFile: String
    var points: Int
}

enum Export {
    /// Writes the frame's Open3D inputs and our cloud into `folder`. Integer depth is handed over as
    /// the camera stored it, so that Open3D does its own scaling; float depth (Float16 on phones,
    /// which Open3D cannot read) goes over as our float32 metres.
    static func write(
        spec: String, captured: CapturedFrame, frame: RGBDFrame, cloud: PointCloud,
        to folder: URL
    ) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let d = captured.depth
        let depthBytes: Data
        let dtype: String
        let scale: Double
        if let units = d.encoding.unitsPerMetre {
            // Drop any row padding: numpy reads a dense plane.
            var dense = Data(capacity: d.width * d.height * 2)
            for y in 0..<d.height {
                dense.append(contentsOf: d.data[(y * d.bytesPerRow)..<(y * d.bytesPerRow + d.width * 2)])
            }
            (depthBytes, dtype, scale) = (dense, "uint16", units)
        } else {
            // Float32 is little-endian on every platform Swift runs this on (x86_64, arm64).
            depthBytes = frame.depth.metres.withUnsafeBytes { Data($0) }
            (dtype, scale) = ("float32", 1.0)
        }
        guard let color = frame.color, let colors = cloud.colors else {
            throw CloudError.badInput("\(spec): the frame has no color, and the benchmark needs it")
        }
        try depthBytes.write(to: folder.appendingPathComponent("depth.raw"))
        try Data(color.rgb).write(to: folder.appendingPathComponent("color.rgb"))
        try cloud.positions.withUnsafeBytes { Data($0) }.write(to: folder.appendingPathComponent("cloud.xyz.f32"))
        try Data(colors).write(to: folder.appendingPathComponent("cloud.rgb.u8"))

        let meta = FrameMeta(
            spec: spec,
            depth: frame.intrinsics.scaled(toWidth: d.width, height: d.height),
            color: frame.intrinsics.scaled(toWidth: color.width, height: color.height),
            depthDtype: dtype, depthScale: scale, depthFile: "depth.raw", colorFile: "color.rgb",
            cloudXyzFile: "cloud.xyz.f32", cloudRgbFile: "cloud.rgb.u8", points: cloud.count)
        try benchJSON(meta).write(to: folder.appendingPathComponent("meta.json"))
    }
}
