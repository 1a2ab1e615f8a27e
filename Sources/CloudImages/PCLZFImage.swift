import CloudCore

/// PCL's PCLZF images, as `pcl::io::LZFImageWriter` writes them (PCL's image grabber records
/// frames this way). A 37-byte header, all integers little-endian as the x86 writers stored them:
///
///     0   "PCLZF"
///     5   width            uint32
///     9   height           uint32
///     13  image type       16 ASCII bytes, padded with blanks: depth16, rgb24, yuv422, bayer8
///     29  compressed size  uint32, exactly the bytes after the header
///     33  raw size         uint32, bytes after decompression
///
/// then one LZF stream (see `LZF`). The raw layouts, chosen by PCL for compressibility:
/// - depth16: width * height uint16, row-major, little-endian (millimetres from OpenNI devices);
/// - rgb24: planar, all R then all G then all B (PCL reorders interleaved RGB before compressing);
/// - yuv422: planar, the U of every pixel pair, then every Y, then the V of every pair;
/// - bayer8: the raw sensor mosaic, which PCL demosaics with its own edge-aware filter.
enum PCLZFImage {
    static let headerSize = 37

    enum Kind: String {
        case depth16, rgb24, yuv422, bayer8

        var rawBytesPerPixel: Int {
            switch self {
            case .depth16, .yuv422: return 2
            case .rgb24: return 3
            case .bayer8: return 1
            }
        }
    }

    /// What the header says, checked against the file: a known kind, a size within
    /// `ImageLimits`, a raw size that fits it, a compressed size equal to what follows the
    /// header and able to expand to the raw size.
    struct Header {
        var width: Int
        var height: Int
        var kind: Kind
        var rawSize: Int

        var image: ImageHeader {
            switch kind {
            case .depth16: return ImageHeader(width: width, height: height, channels: 1, bitDepth: 16)
            // Planar raw data is unpacked through a second buffer of its size.
            case .rgb24, .yuv422, .bayer8: return ImageHeader(width: width, height: height, channels: 3, bitDepth: 8, workingBytes: rawSize)
            }
        }
    }

    static func header(_ bytes: UnsafeRawBufferPointer, origin: String) throws -> Header {
        guard bytes.count >= headerSize else {
            throw CloudError.badInput(.file(origin), "PCLZF header is \(bytes.count) bytes, needs \(headerSize) (truncated)")
        }
        func uint32(at offset: Int) -> Int {
            Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        }
        let width = uint32(at: 5)
        let height = uint32(at: 9)
        let typeField = String(decoding: bytes[13..<29], as: UTF8.self)
        let compressedSize = uint32(at: 29)
        let rawSize = uint32(at: 33)

        // Older PCL versions spelled the type in capitals with underscores ("RGB24_").
        let typeName = String(typeField.lowercased().unicodeScalars.filter { $0.properties.isAlphabetic || ("0"..."9").contains($0) })
        guard let kind = Kind(rawValue: typeName) else {
            throw CloudError.badInput(.file(origin), "unknown PCLZF image type '\(typeField.printableASCII)'")
        }
        try ImageLimits.check(width: width, height: height, origin: origin)
        let pixels = width * height
        guard rawSize == pixels * kind.rawBytesPerPixel else {
            throw CloudError.badInput(
                .file(origin), "PCLZF \(kind) header says \(rawSize) raw bytes, \(width)x\(height) needs \(pixels * kind.rawBytesPerPixel)")
        }
        let stored = bytes.count - headerSize
        guard compressedSize == stored else {
            throw CloudError.badInput(
                .file(origin),
                "PCLZF header says \(compressedSize) bytes of compressed data, the file holds \(stored)\(stored < compressedSize ? " (truncated)" : "")"
            )
        }
        // Before any output buffer exists: a few bytes claiming a 16384x16384 image reserve nothing.
        guard LZF.canExpand(compressedSize, to: rawSize) else {
            throw CloudError.badInput(.file(origin), "compressed block of \(compressedSize) bytes cannot unpack to \(rawSize) bytes")
        }
        return Header(width: width, height: height, kind: kind, rawSize: rawSize)
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, origin: String) throws -> DecodedImage {
        let header = try header(bytes, origin: origin)
        let (width, height, kind, rawSize) = (header.width, header.height, header.kind, header.rawSize)
        let pixels = width * height
        let compressed = UnsafeRawBufferPointer(rebasing: bytes[headerSize...])

        switch kind {
        case .depth16:
            // Decompressed straight into the final array, which LZF fills completely or throws;
            // the bytes are little-endian uint16.
            let samples = try [UInt16](unsafeUninitializedCapacity: pixels) { buffer, initialized in
                try LZF.decompress(compressed, into: UnsafeMutableRawBufferPointer(buffer), origin: origin)
                initialized = pixels
            }
            #if _endian(big)
            let depth = samples.map { UInt16(littleEndian: $0) }
            #else
            let depth = samples
            #endif
            return DecodedImage(width: width, height: height, channels: 1, samples: .uint16(depth))
        case .rgb24:
            let planes = try decompress(compressed, count: rawSize, origin: origin)
            let rgb = [UInt8](unsafeUninitializedCapacity: pixels * 3) { out, initialized in
                planes.withUnsafeBufferPointer { p in
                    for i in 0..<pixels {
                        out[3 * i] = p[i]
                        out[3 * i + 1] = p[pixels + i]
                        out[3 * i + 2] = p[2 * pixels + i]
                    }
                }
                initialized = pixels * 3
            }
            return DecodedImage(width: width, height: height, channels: 3, samples: .uint8(rgb))
        case .yuv422:
            guard pixels % 2 == 0 else {
                throw CloudError.badInput(.file(origin), "PCLZF yuv422 needs an even number of pixels, \(width)x\(height) is odd")
            }
            let planes = try decompress(compressed, count: rawSize, origin: origin)
            return DecodedImage(width: width, height: height, channels: 3, samples: .uint8(rgb(yuv422: planes, pixels: pixels)))
        case .bayer8:
            throw CloudError.badInput(
                .file(origin), "PCLZF bayer8 (raw sensor mosaic) is not supported; cloudgen reads depth16, rgb24 and yuv422")
        }
    }

    /// `count` bytes of LZF output in an array that is never zero-filled: LZF writes every byte
    /// or throws.
    private static func decompress(_ compressed: UnsafeRawBufferPointer, count: Int, origin: String) throws -> [UInt8] {
        try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            try LZF.decompress(compressed, into: UnsafeMutableRawBufferPointer(buffer), origin: origin)
            initialized = count
        }
    }

    /// The conversion PCL's `LZFYUV422ImageReader` applies (the one of OpenNI's YUV422 stream), in
    /// 14-bit fixed point, so that our colors equal PCL's: R = Y + 1.140 V, G = Y - 0.395 U - 0.581 V,
    /// B = Y + 2.032 U, with U and V centred on 128, each term rounded, then clamped to 0...255.
    /// Each U and V sample covers a pair of horizontally neighbouring pixels.
    static func rgb(yuv422 planes: [UInt8], pixels: Int) -> [UInt8] {
        let pairs = pixels / 2
        return [UInt8](unsafeUninitializedCapacity: pixels * 3) { out, initialized in
            planes.withUnsafeBufferPointer { p in
                for pair in 0..<pairs {
                    let u = Int(p[pair]) - 128
                    let v = Int(p[pairs + pixels + pair]) - 128
                    let red = (18678 * v + 8192) >> 14
                    let green = (-9519 * v - 6472 * u + 8192) >> 14
                    let blue = (33292 * u + 8192) >> 14
                    for k in 0..<2 {
                        let y = Int(p[pairs + 2 * pair + k])
                        let d = 3 * (2 * pair + k)
                        out[d] = UInt8(clamping: y + red)
                        out[d + 1] = UInt8(clamping: y + green)
                        out[d + 2] = UInt8(clamping: y + blue)
                    }
                }
            }
            initialized = pixels * 3
        }
    }
}

extension String {
    fileprivate var printableASCII: String {
        String(unicodeScalars.filter { $0.value > 0x20 && $0.value < 0x7F })
    }
}
