import CloudCapture
import CloudCore
import CloudImages
import Foundation
import TestEncoders
import XCTest

/// A Record3D "EXR + JPG" export written from the simulated camera's frames of a known room, in the
/// layout Record3D's description gives (Docs/formats.md cites it): metadata.json with the color
/// images' size, K column-major at that size, the depth maps' size and a pose per frame as
/// [qx, qy, qz, qw, px, py, pz] camera-to-world in OpenGL's camera axes; rgb/N.jpg; depth/N.exr
/// with the simulator's float32 metres in channel R. The world is the simulated room's.
struct Record3DFixture {
    static func spec(frames: Int) -> String { "synthetic:room=4x3x2.5,frames=\(frames),format=depth32,color=320x240,noise=0" }
    /// The simulated frames the export was written from, in order.
    let frames: [CapturedFrame]
    let folder: String
    var metadataPath: String { folder + "/metadata.json" }

    /// `halfDepth`: the EXRs store half floats (Record3D writes float; an EXR may hold either).
    init(in dir: String, frames count: Int = 3, halfDepth: Bool = false) throws {
        folder = dir + "/record3d"
        let spec = Self.spec(frames: count)
        let camera = try syntheticCamera(spec)
        var frames: [CapturedFrame] = []
        while let frame = try camera.nextFrame() { frames.append(frame) }
        self.frames = frames
        for name in ["rgb", "depth"] {
            try FileManager.default.createDirectory(atPath: "\(folder)/\(name)", withIntermediateDirectories: true)
        }
        var poses: [[Double]] = []
        for (i, frame) in frames.enumerated() {
            let decoded = try RGBDFrame(decoding: frame, origin: spec)
            try JPEGWriter.write(rgb: try XCTUnwrap(decoded.color), to: "\(folder)/rgb/\(i).jpg", quality: 95)
            try EXRDepthFile.write(
                decoded.depth.metres, width: decoded.depth.width, height: decoded.depth.height, channel: "R",
                half: halfDepth, to: "\(folder)/depth/\(i).exr")
            poses.append(Self.openGLPose(try XCTUnwrap(frame.pose)))
        }
        let first = frames[0]
        let k = first.intrinsics.scaled(toWidth: 320, height: 240)
        try Self.writeMetadata(
            k: [k.fx, 0, 0, 0, k.fy, 0, k.cx, k.cy, 1], poses: poses,
            depthWidth: first.depth.width, depthHeight: first.depth.height, to: metadataPath)
    }

    /// metadata.json as Record3D writes it, with the keys cloudgen does not read too.
    static func writeMetadata(k: [Double], poses: [[Double]], depthWidth: Int, depthHeight: Int, to path: String) throws {
        func list(_ values: [Double]) -> String { "[" + values.map { "\($0)" }.joined(separator: ", ") + "]" }
        let text = """
            {"w": 320, "h": 240, "dw": \(depthWidth), "dh": \(depthHeight), "fps": 60, "cameraType": 1,
             "K": \(list(k)), "initPose": [0, 0, 0, 1, 0, 0, 0],
             "frameTimestamps": \(list(poses.indices.map { Double($0) / 60 })),
             "poses": [\(poses.map(list).joined(separator: ", "))]}
            """
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// A camera-to-world pose in cloudgen's camera axes as Record3D stores it: OpenGL's camera axes
    /// (the second and third columns negated), the rotation as a unit quaternion, scalar last.
    static func openGLPose(_ pose: Pose) -> [Double] {
        let (r0, r1, r2) = pose.rotation
        let flip = SIMD3<Double>(1, -1, -1)
        let m = [r0 * flip, r1 * flip, r2 * flip]
        // Shepperd's method: from the largest of w, x, y, z, so that no division is by a small number.
        let trace = m[0].x + m[1].y + m[2].z
        var q: (x: Double, y: Double, z: Double, w: Double)
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            q = ((m[2].y - m[1].z) / s, (m[0].z - m[2].x) / s, (m[1].x - m[0].y) / s, s / 4)
        } else if m[0].x > m[1].y && m[0].x > m[2].z {
            let s = (1 + m[0].x - m[1].y - m[2].z).squareRoot() * 2
            q = (s / 4, (m[0].y + m[1].x) / s, (m[0].z + m[2].x) / s, (m[2].y - m[1].z) / s)
        } else if m[1].y > m[2].z {
            let s = (1 + m[1].y - m[0].x - m[2].z).squareRoot() * 2
            q = ((m[0].y + m[1].x) / s, s / 4, (m[1].z + m[2].y) / s, (m[0].z - m[2].x) / s)
        } else {
            let s = (1 + m[2].z - m[0].x - m[1].y).squareRoot() * 2
            q = ((m[0].z + m[2].x) / s, (m[1].z + m[2].y) / s, s / 4, (m[1].x - m[0].y) / s)
        }
        return [q.x, q.y, q.z, q.w, pose.translation.x, pose.translation.y, pose.translation.z]
    }
}
