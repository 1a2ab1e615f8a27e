import CloudCapture
import CloudCore
import CloudImages
import Foundation
import XCTest

/// A Stray Scanner export written from the simulated camera's frames of a known room, in the
/// layout the app's format description gives (Docs/formats.md cites it): rgb.mp4 holding the color
/// frames as HEVC (encoded by Debian's ffmpeg with libx265, tagged BT.709 video range as the
/// phone's are), camera_matrix.csv at the video's size, 16-bit millimetre depth as PNG or as the
/// older .npy, a confidence map whose left quarter is low (0) and next quarter medium (1), the
/// rest high (2), and odometry.csv written as the app's OdometryEncoder writes it: the ARKit
/// camera's orientation times a half turn about x, in ARKit's y-up world.
struct StrayFixture {
    static let spec = "synthetic:room=4x3x2.5,frames=3,format=mm16,color=320x240,noise=0"
    /// The simulated frames the export was written from, in order.
    let frames: [CapturedFrame]
    let folder: String

    init(in dir: String, npy: Bool = false, fastStart: Bool = false) throws {
        folder = dir + "/stray"
        try FileManager.default.createDirectory(atPath: folder + "/depth", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/confidence", withIntermediateDirectories: true)
        let camera = try syntheticCamera(Self.spec)
        var frames: [CapturedFrame] = []
        while let frame = try camera.nextFrame() { frames.append(frame) }
        self.frames = frames

        var odometry = "timestamp, frame, x, y, z, qx, qy, qz, qw\n"
        var colors: [ColorImage] = []
        for (i, frame) in frames.enumerated() {
            let stem = String(format: "%06d", i)
            colors.append(try XCTUnwrap(try RGBDFrame(decoding: frame, origin: Self.spec).color))
            let (w, h) = (frame.depth.width, frame.depth.height)
            let millimetres = (0..<(w * h)).map { UInt16(frame.depth.data[2 * $0]) | UInt16(frame.depth.data[2 * $0 + 1]) << 8 }
            if npy {
                try Data(Self.npy(millimetres, width: w, height: h)).write(to: URL(fileURLWithPath: "\(folder)/depth/\(stem).npy"))
            } else {
                try PNGWriter.write(gray16: millimetres, width: w, height: h, to: "\(folder)/depth/\(stem).png")
            }
            let confidence = (0..<(w * h)).map { i -> UInt8 in
                let x = i % w
                return x < w / 4 ? 0 : x < w / 2 ? 1 : 2
            }
            try PNGWriter.write(gray8: confidence, width: w, height: h, to: "\(folder)/confidence/\(stem).png")
            let pose = PolycamFixture.arkitWorld(try XCTUnwrap(frame.pose))
            let q = Self.appQuaternion(arkitCameraToWorld: pose)
            let t = pose.translation
            odometry += "\(1000.25 + Double(i) / 60), \(stem), \(t.x), \(t.y), \(t.z), \(q.x), \(q.y), \(q.z), \(q.w)\n"
        }
        try odometry.write(toFile: folder + "/odometry.csv", atomically: true, encoding: .utf8)
        let k = frames[0].intrinsics.scaled(toWidth: colors[0].width, height: colors[0].height)
        try "\(k.fx), 0.0, \(k.cx)\n0.0, \(k.fy), \(k.cy)\n0.0, 0.0, 1.0".write(
            toFile: folder + "/camera_matrix.csv", atomically: true, encoding: .utf8)
        try Self.encodeVideo(colors, to: folder + "/rgb.mp4", fastStart: fastStart)
    }

    /// What the app's OdometryEncoder writes for a camera-to-world pose given in cloudgen's camera
    /// axes: ARKit's camera transform (cloudgen's with its y and z columns negated) as a
    /// quaternion q_WA, times q_AC, a half turn about x.
    static func appQuaternion(arkitCameraToWorld pose: Pose) -> (x: Double, y: Double, z: Double, w: Double) {
        let (r0, r1, r2) = pose.rotation
        let arkit = [[r0.x, -r0.y, -r0.z], [r1.x, -r1.y, -r1.z], [r2.x, -r2.y, -r2.z]]
        let qWA = quaternion(arkit)
        // (w, x, y, z) products with q_AC = (w 0, x 1, y 0, z 0).
        return (x: qWA.w, y: qWA.z, z: -qWA.y, w: -qWA.x)
    }

    /// The unit quaternion of a rotation matrix (Shepperd's method: the largest of the four
    /// diagonal combinations first, for accuracy).
    static func quaternion(_ m: [[Double]]) -> (w: Double, x: Double, y: Double, z: Double) {
        let trace = m[0][0] + m[1][1] + m[2][2]
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            return ((s / 4), (m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s)
        } else if m[0][0] > m[1][1] && m[0][0] > m[2][2] {
            let s = (1 + m[0][0] - m[1][1] - m[2][2]).squareRoot() * 2
            return ((m[2][1] - m[1][2]) / s, s / 4, (m[0][1] + m[1][0]) / s, (m[0][2] + m[2][0]) / s)
        } else if m[1][1] > m[2][2] {
            let s = (1 + m[1][1] - m[0][0] - m[2][2]).squareRoot() * 2
            return ((m[0][2] - m[2][0]) / s, (m[0][1] + m[1][0]) / s, s / 4, (m[1][2] + m[2][1]) / s)
        } else {
            let s = (1 + m[2][2] - m[0][0] - m[1][1]).squareRoot() * 2
            return ((m[1][0] - m[0][1]) / s, (m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s, s / 4)
        }
    }

    /// A version 1.0 .npy file of a uint16 array, C order, as NumPy (and the app's cnpy) write it.
    static func npy(_ samples: [UInt16], width: Int, height: Int, header: String? = nil) -> [UInt8] {
        var dict = header ?? "{'descr': '<u2', 'fortran_order': False, 'shape': (\(height), \(width)), }"
        // Padded with spaces to a newline so that the samples start at a multiple of 64 bytes.
        while (10 + dict.utf8.count + 1) % 64 != 0 { dict += " " }
        dict += "\n"
        let length = dict.utf8.count
        var bytes: [UInt8] = [0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(length & 0xFF), UInt8(length >> 8)] + Array(dict.utf8)
        for s in samples { bytes += [UInt8(s & 0xFF), UInt8(s >> 8)] }
        return bytes
    }

    /// HEVC through Debian's ffmpeg and libx265 (Tools/bootstrap installs it): BT.709 video range
    /// 4:2:0, 60 frames a second, as the app's AVAssetWriter writes; with `fastStart` the index
    /// comes before the frames, so that a file cut short still opens.
    /// `h264FullRange`: H.264 in full range with the BT.601 matrix and no color tags instead, as
    /// a video re-encoded elsewhere might be.
    static func encodeVideo(_ frames: [ColorImage], to path: String, fastStart: Bool = false, h264FullRange: Bool = false) throws {
        let ffmpeg = "/usr/bin/ffmpeg"
        guard FileManager.default.isExecutableFile(atPath: ffmpeg) else {
            throw CloudError.io(
                "\(ffmpeg) is missing: the Stray fixture encodes its video with Debian's ffmpeg (Tools/bootstrap installs it)")
        }
        let raw = path + ".rgb"
        try Data(frames.flatMap(\.rgb)).write(to: URL(fileURLWithPath: raw))
        defer { try? FileManager.default.removeItem(atPath: raw) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments =
            [
                "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
                "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", "\(frames[0].width)x\(frames[0].height)", "-r", "60", "-i", raw
            ]
            + (h264FullRange
                ? ["-vf", "scale=out_color_matrix=bt601:out_range=pc", "-pix_fmt", "yuvj420p", "-c:v", "libx264", "-crf", "12"]
                : [
                    "-vf", "scale=out_color_matrix=bt709:out_range=tv", "-pix_fmt", "yuv420p",
                    "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv",
                    "-c:v", "libx265", "-crf", "12", "-x265-params", "log-level=error", "-tag:v", "hvc1"
                ])
            + (fastStart ? ["-movflags", "+faststart"] : []) + [path]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CloudError.io("\(ffmpeg) failed (status \(process.terminationStatus)) writing \(path)")
        }
    }
}
