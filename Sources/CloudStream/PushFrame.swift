import CloudCore
import CloudImages
import Foundation

// TEMPORARY: the server's reading of a pushed frame until the wire layer's PushFrame lands.
public enum PushFrame {
    public static func decode(
        _ message: Data, intrinsics: (Int, Int) throws -> CameraIntrinsics, depthUnitsPerMetre: Double, origin: String
    ) throws -> (frame: CapturedFrame, header: PushHeader, jpeg: Data?) {
        let (header, payloads) = try StreamMessage.decode(message, origin: origin, as: PushHeader.self) { $0.payloadSizes }
        let d = header.depth
        guard (1...8192).contains(d.width), (1...8192).contains(d.height), d.width * d.height <= 1 << 24 else {
            throw CloudError.badInput("\(origin): frame \(header.frame): a depth of \(d.width)x\(d.height) is too large")
        }
        guard let codec = DepthFrameCodec(rawValue: d.encoding) else {
            throw CloudError.badInput("\(origin): frame \(header.frame): depth encoding \(d.encoding) is not png, rvl or zstd")
        }
        let samples = try codec.decode([UInt8](payloads[0]), width: d.width, height: d.height, origin: "\(origin): frame \(header.frame)")
        var bytes = [UInt8](repeating: 0, count: samples.count * 2)
        for (i, s) in samples.enumerated() {
            bytes[2 * i] = UInt8(truncatingIfNeeded: s)
            bytes[2 * i + 1] = UInt8(truncatingIfNeeded: s >> 8)
        }
        var color: CapturedFrame.Color?
        var jpeg: Data?
        if header.color != nil {
            let image = try ImageFile.decode([UInt8](payloads[1]), origin: "\(origin): frame \(header.frame) color").colorImage(
                origin: origin)
            color = CapturedFrame.Color(width: image.width, height: image.height, layout: .rgb8, planes: [image.rgb])
            jpeg = payloads[1]
        }
        var pose: Pose?
        if let m = header.pose {
            guard m.count == 16, m.allSatisfy(\.isFinite) else { throw CloudError.badInput("\(origin): frame \(header.frame): bad pose") }
            pose = Pose(
                rows: (SIMD3(m[0], m[1], m[2]), SIMD3(m[4], m[5], m[6]), SIMD3(m[8], m[9], m[10])), translation: SIMD3(m[3], m[7], m[11]))
        }
        let frame = CapturedFrame(
            depth: .init(width: d.width, height: d.height, encoding: .uint16(unitsPerMetre: depthUnitsPerMetre), data: bytes),
            color: color, intrinsics: try intrinsics(d.width, d.height), pose: pose, timestamp: Double(header.captured) / 1e9)
        return (frame, header, jpeg)
    }
}
