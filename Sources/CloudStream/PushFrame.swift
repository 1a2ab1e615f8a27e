import CloudCore
import CloudImages
import Foundation

/// One frame on a stream's push socket (`GET /v1/streams/{id}/push`): a `PushHeader`, the depth
/// as 16-bit samples in the stream's units coded by a `DepthFrameCodec`, then the color as JPEG.
/// The client encodes a source's `CapturedFrame` into it; the server decodes it back into one
/// (PushFrame+Decode.swift), trusting nothing the message says.
public enum PushFrame {
    /// The largest depth or color image a frame may carry, per side and in all: above every depth
    /// sensor and phone camera made (a 12 MP photo is 4032x3024), yet small enough that a lying
    /// header cannot make the server reserve more than 32 MiB of depth or 48 MiB of color.
    public static let maxSide = 8192
    public static let maxPixels = 16 << 20

    /// The depth scale (units per metre) of a stream whose first frame is `frame`: 16-bit depth
    /// keeps its source's own units (TUM 5000, Redwood 1000), so it travels unchanged; floating
    /// point depth (phones) travels in millimetres.
    public static func depthScale(of frame: CapturedFrame) -> Double {
        frame.depth.encoding.unitsPerMetre ?? 1000
    }

    /// `frame` as the push message of frame number `index`, acquired at `captured` (ns since the
    /// Unix epoch, `StreamClock.now()`). Depth in other units than `depthScale` is converted to it;
    /// depth beyond 65535 units (65 m in millimetres) becomes 0, no depth. Color of any layout
    /// becomes a JPEG of `quality`. `origin` names the source in errors.
    public static func encode(
        _ frame: CapturedFrame, index: Int, captured: Int64, depthScale: Double, codec: DepthFrameCodec,
        quality: Int = JPEGWriter.defaultQuality, origin: String
    ) throws -> StreamMessage {
        let d = frame.depth
        try checkSize(width: d.width, height: d.height, what: "depth", origin: origin)
        let samples = try depthSamples(d, depthScale: depthScale, origin: origin)
        let depth = try codec.encode(samples, width: d.width, height: d.height, origin: origin)
        var payloads = [Data(depth)]
        var color: PushHeader.Color?
        if let c = frame.color {
            try checkSize(width: c.width, height: c.height, what: "color", origin: origin)
            let image = try ColorImage(decoding: c, origin: origin)
            let jpeg = try JPEGWriter.encode(
                image.rgb, width: image.width, height: image.height, channels: 3, quality: quality, origin: origin)
            payloads.append(Data(jpeg))
            color = PushHeader.Color(encoding: "jpeg", bytes: jpeg.count)
        }
        let header = PushHeader(
            frame: index, captured: captured,
            depth: PushHeader.Depth(encoding: codec.rawValue, width: d.width, height: d.height, bytes: depth.count),
            color: color, pose: frame.pose.map(rowMajor))
        return try StreamMessage(header: header, payloads: payloads)
    }

    /// Why a `width` x `height` image cannot travel in a frame, as bad input about `origin`.
    static func checkSize(width: Int, height: Int, what: String, origin: String) throws {
        guard (1...maxSide).contains(width), (1...maxSide).contains(height), width * height <= maxPixels else {
            throw CloudError.badInput(
                "\(origin): a \(width)x\(height) \(what) image is outside what a stream frame carries (1...\(maxSide) a side, \(maxPixels) pixels)"
            )
        }
    }

    /// The depth plane as row-major samples in `depthScale` units per metre: a plane already in
    /// those units is copied (its row padding dropped), any other is converted through metres.
    static func depthSamples(_ d: CapturedFrame.Depth, depthScale: Double, origin: String) throws -> [UInt16] {
        if case .uint16(let units) = d.encoding, units == depthScale {
            let needed = d.bytesPerRow * (d.height - 1) + 2 * d.width
            guard d.bytesPerRow >= 2 * d.width, d.data.count >= needed else {
                throw CloudError.badInput(
                    "\(origin): the depth plane holds \(d.data.count) bytes, where \(d.width)x\(d.height) 16-bit samples need \(needed)")
            }
            var samples = [UInt16](repeating: 0, count: d.width * d.height)
            d.data.withUnsafeBytes { raw in
                for y in 0..<d.height {
                    for x in 0..<d.width {
                        samples[y * d.width + x] = UInt16(
                            littleEndian: raw.loadUnaligned(fromByteOffset: y * d.bytesPerRow + 2 * x, as: UInt16.self))
                    }
                }
            }
            return samples
        }
        guard DepthEncoding.isUsableScale(depthScale) else {
            throw CloudError.badInput("\(origin): depth scale \(depthScale) is not a positive number of units per metre")
        }
        let metres = try d.data.withUnsafeBytes {
            try DepthMap(raw: $0, width: d.width, height: d.height, encoding: d.encoding, bytesPerRow: d.bytesPerRow, origin: origin)
        }
        let scale = Float(depthScale)
        return metres.metres.map { z in
            let units = (z * scale).rounded()
            return units >= 1 && units <= 65535 ? UInt16(units) : 0
        }
    }

    /// The 16 numbers of a camera-to-world pose, row-major, as the header carries them.
    public static func rowMajor(_ pose: Pose) -> [Double] {
        let (r, t) = (pose.rotation, pose.translation)
        return [r.0.x, r.0.y, r.0.z, t.x, r.1.x, r.1.y, r.1.z, t.y, r.2.x, r.2.y, r.2.z, t.z, 0, 0, 0, 1]
    }
}
