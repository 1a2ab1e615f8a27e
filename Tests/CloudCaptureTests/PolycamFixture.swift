import CloudCapture
import CloudCore
import CloudImages
import Foundation
import TestEncoders
import XCTest

/// A Polycam raw-data export written from the simulated camera's frames of a known room, in the
/// layout Polycam's description gives (Docs/formats.md cites it): JPEG keyframe images at the
/// color camera's size, camera JSON with the intrinsics at that size and the ARKit-axes pose as
/// t_00 ... t_23, 16-bit millimetre depth, and a confidence map whose left quarter is low (0) and
/// next quarter medium (127), the rest high (255). Keyframes are named by a timestamp in
/// microseconds, and the world is ARKit's (y up): the simulated room's z-up world turned.
struct PolycamFixture {
    static let spec = "synthetic:room=4x3x2.5,frames=3,format=mm16,color=320x240,noise=0"
    /// The simulated frames the export was written from, in order.
    let frames: [CapturedFrame]
    let folder: String

    /// `corrected`: the true poses go to corrected_cameras/ and cameras/ gets poses a metre off,
    /// so that only a reader preferring the corrected set gets the room right.
    init(in dir: String, corrected: Bool = false) throws {
        folder = dir + "/polycam"
        let camera = try syntheticCamera(Self.spec)
        var frames: [CapturedFrame] = []
        while let frame = try camera.nextFrame() { frames.append(frame) }
        self.frames = frames
        for (i, frame) in frames.enumerated() {
            // The last keyframe's time has one digit more: first by name, last by time.
            let stem = String(i == frames.count - 1 ? 1_000_000_000_000_000 : 900_000_000_000_000 + i * 500_000)
            let color = try XCTUnwrap(try RGBDFrame(decoding: frame, origin: Self.spec).color)
            try Self.makeFolder("\(folder)/keyframes/images")
            try JPEGWriter.write(rgb: color, to: "\(folder)/keyframes/images/\(stem).jpg", quality: 95)
            let k = frame.intrinsics.scaled(toWidth: color.width, height: color.height)
            let pose = Self.arkitWorld(try XCTUnwrap(frame.pose))
            if corrected {
                try Self.writeCamera(k, pose, to: "\(folder)/keyframes/corrected_cameras/\(stem).json")
                var wrong = pose
                wrong.translation.x += 1
                try Self.writeCamera(k, wrong, to: "\(folder)/keyframes/cameras/\(stem).json")
            } else {
                try Self.writeCamera(k, pose, to: "\(folder)/keyframes/cameras/\(stem).json")
            }
            let (w, h) = (frame.depth.width, frame.depth.height)
            let millimetres = (0..<(w * h)).map { UInt16(frame.depth.data[2 * $0]) | UInt16(frame.depth.data[2 * $0 + 1]) << 8 }
            try Self.makeFolder("\(folder)/keyframes/depth")
            try PNGWriter.write(gray16: millimetres, width: w, height: h, to: "\(folder)/keyframes/depth/\(stem).png")
            let confidence = (0..<(w * h)).map { i -> UInt8 in
                let x = i % w
                return x < w / 4 ? 0 : x < w / 2 ? 127 : 255
            }
            try Self.makeFolder("\(folder)/keyframes/confidence")
            try PNGWriter.write(gray8: confidence, width: w, height: h, to: "\(folder)/keyframes/confidence/\(stem).png")
        }
    }

    /// A pose in the simulated room's world (z up) in ARKit's gravity-aligned world (y up):
    /// (x, y, z) becomes (x, z, -y).
    static func arkitWorld(_ pose: Pose) -> Pose {
        let (r0, r1, r2) = pose.rotation
        let t = pose.translation
        return Pose(rows: (r0, r2, -r1), translation: SIMD3(t.x, t.z, -t.y))
    }

    static func makeFolder(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// As Polycam writes a keyframe's camera: ARKit's axes (y up, z towards the viewer), row-major 3x4.
    static func writeCamera(_ k: CameraIntrinsics, _ pose: Pose, to path: String) throws {
        let r = [pose.rotation.0, pose.rotation.1, pose.rotation.2]
        var fields = [
            "\"fx\": \(k.fx)", "\"fy\": \(k.fy)", "\"cx\": \(k.cx)", "\"cy\": \(k.cy)",
            "\"width\": \(k.referenceWidth)", "\"height\": \(k.referenceHeight)", "\"blur_score\": 180.5", "\"timestamp\": 12345"
        ]
        for row in 0..<3 {
            let arkit = [r[row].x, -r[row].y, -r[row].z, pose.translation[row]]
            for column in 0..<4 { fields.append("\"t_\(row)\(column)\": \(arkit[column])") }
        }
        try makeFolder((path as NSString).deletingLastPathComponent)
        try ("{" + fields.joined(separator: ", ") + "}").write(toFile: path, atomically: true, encoding: .utf8)
    }
}
