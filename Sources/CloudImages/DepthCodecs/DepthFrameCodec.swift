import CImageCodecs
import CloudCore
import SafeIO

/// The lossless codings of a 16-bit depth image in a stream frame (the raw units of its source,
/// row-major): 16-bit grayscale PNG, what clients can write with any image library; RVL, built for
/// depth and fastest both ways; zstd, the smallest at its fast levels (Docs/benchmarks.md,
/// "Depth frames", has the figures).
public enum DepthFrameCodec: String, CaseIterable, Sendable {
    case png
    case rvl
    case zstd

    /// zstd's level for frames: its fast end, where it compresses faster than PNG does.
    public static let zstdLevel: Int32 = 1

    public func encode(_ depth: [UInt16], width: Int, height: Int, origin: String) throws -> [UInt8] {
        guard depth.count == width * height else {
            throw CloudError.badInput(.file(origin), "a \(width)x\(height) depth image needs \(width * height) values, got \(depth.count)")
        }
        switch self {
        case .png:
            return try PNGWriter.encode(gray16: depth, width: width, height: height, origin: origin)
        case .rvl:
            return RVL.encode(depth)
        case .zstd:
            var status = cic_status()
            let bound = cic_zstd_bound(2 * depth.count, &status)
            if let error = status.error(about: .file(origin)) { throw error }
            var out = [UInt8](repeating: 0, count: bound)
            let written = depth.littleEndianBytes { raw in
                out.withUnsafeMutableBytes {
                    cic_zstd_compress(raw.baseAddress, raw.count, $0.baseAddress, $0.count, Self.zstdLevel, &status)
                }
            }
            if let error = status.error(about: .file(origin)) { throw error }
            out.removeSubrange(written...)
            return out
        }
    }

    /// The `width` x `height` depth image in `bytes`, which must hold exactly that image: an image
    /// of another size or format, or data left over, is bad input named by `origin`. The output is
    /// sized from the dimensions the caller gives (checked against the image limits), never from
    /// what the data claims.
    public func decode(_ bytes: [UInt8], width: Int, height: Int, origin: String) throws -> [UInt16] {
        try ImageLimits.check(width: width, height: height, origin: origin)
        switch self {
        case .png:
            // The file's own header is judged first: decoding would allocate for the size it claims.
            let header = try ImageFile.header(bytes, origin: origin)
            guard header.bitDepth == 16, header.channels == 1 else {
                throw CloudError.badInput(
                    .file(origin), "depth must be a 16-bit grayscale PNG, not \(header.bitDepth)-bit with \(header.channels) channels")
            }
            guard header.width == width, header.height == height else {
                throw CloudError.badInput(
                    .file(origin), "the PNG is \(header.width)x\(header.height), where the frame says \(width)x\(height)")
            }
            guard case .uint16(let samples) = try ImageFile.decode(bytes, origin: origin).samples else {
                throw CloudError.badInput(.file(origin), "depth must be a 16-bit grayscale PNG")
            }
            return samples
        case .rvl:
            return try bytes.withUnsafeBytes { try RVL.decode($0, count: width * height, origin: origin) }
        case .zstd:
            var depth = [UInt16](repeating: 0, count: width * height)
            var status = cic_status()
            bytes.withUnsafeBytes { raw in
                depth.withUnsafeMutableBytes { _ = cic_zstd_decompress(raw.baseAddress, raw.count, $0.baseAddress, $0.count, &status) }
            }
            if let error = status.error(about: .file(origin)) { throw error }
            #if _endian(big)
            for i in depth.indices { depth[i] = UInt16(littleEndian: depth[i]) }
            #endif
            return depth
        }
    }
}

extension Array where Element: FixedWidthInteger {
    /// The values as little-endian bytes: the array's own memory on a little-endian machine (every
    /// one cloudgen builds for), a swapped copy elsewhere.
    func littleEndianBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        #if _endian(big)
        return try map { $0.littleEndian }.withUnsafeBytes(body)
        #else
        return try withUnsafeBytes(body)
        #endif
    }
}
