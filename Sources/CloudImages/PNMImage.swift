import CloudCore

/// Binary Netpbm images: PGM (P5, gray) and PPM (P6, RGB), as the Netpbm specification defines
/// them. A maxval below 256 means one byte per sample, 256...65535 two bytes, most significant
/// first. Samples are returned as stored, not rescaled to maxval: a depth PGM with maxval 65535
/// or 4095 keeps its raw units. Only the first image of a multi-image file is read.
enum PNMImage {
    /// What the header says, checked: a known kind, a size within `ImageLimits`, a maxval in
    /// 1...65535 and a raster long enough for it; `start` is the raster's offset.
    struct Header {
        var width: Int
        var height: Int
        var channels: Int
        var maxval: Int
        var start: Int

        var image: ImageHeader { ImageHeader(width: width, height: height, channels: channels, bitDepth: maxval < 256 ? 8 : 16) }
    }

    static func header(_ bytes: UnsafeRawBufferPointer, origin: String) throws -> Header {
        // The sniffer guarantees "P<digit><whitespace>".
        let kind = bytes[1]
        let channels: Int
        switch kind {
        case UInt8(ascii: "5"): channels = 1
        case UInt8(ascii: "6"): channels = 3
        case UInt8(ascii: "2"), UInt8(ascii: "3"):
            throw CloudError.badInput(
                .file(origin), "plain (ASCII) Netpbm P\(Character(Unicode.Scalar(kind))) is not supported; cloudgen reads binary P5/P6")
        default:
            throw CloudError.badInput(
                .file(origin), "Netpbm P\(Character(Unicode.Scalar(kind))) is not supported; cloudgen reads binary PGM (P5) and PPM (P6)")
        }
        var header = HeaderReader(bytes: bytes, position: 2, origin: origin)
        let width = try header.number("width")
        let height = try header.number("height")
        let maxval = try header.number("maxval")
        // Exactly one whitespace character separates maxval from the raster.
        guard header.position < bytes.count, isWhitespace(bytes[header.position]) else {
            throw CloudError.badInput(.file(origin), "Netpbm header does not end with whitespace after maxval")
        }
        let start = header.position + 1
        guard (1...65535).contains(maxval) else {
            throw CloudError.badInput(.file(origin), "Netpbm maxval \(maxval) is outside 1...65535")
        }
        try ImageLimits.check(width: width, height: height, origin: origin)
        let count = width * height * channels
        let sampleBytes = maxval < 256 ? 1 : 2
        let available = bytes.count - start
        guard available >= count * sampleBytes else {
            throw CloudError.badInput(
                .file(origin), "Netpbm raster holds \(available) bytes, \(width)x\(height) needs \(count * sampleBytes) (truncated)")
        }
        return Header(width: width, height: height, channels: channels, maxval: maxval, start: start)
    }

    static func decode(_ bytes: UnsafeRawBufferPointer, origin: String) throws -> DecodedImage {
        let h = try header(bytes, origin: origin)
        let (width, height, channels, maxval, start) = (h.width, h.height, h.channels, h.maxval, h.start)
        let count = width * height * channels
        let sampleBytes = maxval < 256 ? 1 : 2
        let raster = UnsafeRawBufferPointer(rebasing: bytes[start..<(start + count * sampleBytes)])
        // The specification bounds every sample by maxval; one above it is corrupt data (or a
        // header whose maxval lies), not a value to pass on as depth.
        func aboveMaxval(_ index: Int, _ value: Int) -> CloudError {
            .badInput(.file(origin), "Netpbm sample \(index) is \(value), above the header's maxval \(maxval)")
        }
        if sampleBytes == 1 {
            let samples = Array(raster)
            if maxval < 255, let i = samples.firstIndex(where: { Int($0) > maxval }) { throw aboveMaxval(i, Int(samples[i])) }
            return DecodedImage(width: width, height: height, channels: channels, samples: .uint8(samples))
        }
        let samples = [UInt16](unsafeUninitializedCapacity: count) { buffer, initialized in
            for i in 0..<count {
                buffer[i] = UInt16(bigEndian: raster.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self))
            }
            initialized = count
        }
        if maxval < 65535, let i = samples.firstIndex(where: { Int($0) > maxval }) { throw aboveMaxval(i, Int(samples[i])) }
        return DecodedImage(width: width, height: height, channels: channels, samples: .uint16(samples))
    }

    /// Netpbm's whitespace: blank, tab, CR, LF, vertical tab, form feed.
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    /// Tokens of the header: decimal numbers separated by whitespace and `#` comments, which run
    /// to the end of their line.
    private struct HeaderReader {
        let bytes: UnsafeRawBufferPointer
        var position: Int
        let origin: String

        mutating func number(_ what: String) throws -> Int {
            while position < bytes.count {
                if isWhitespace(bytes[position]) {
                    position += 1
                } else if bytes[position] == UInt8(ascii: "#") {
                    while position < bytes.count, bytes[position] != 0x0A, bytes[position] != 0x0D { position += 1 }
                } else {
                    break
                }
            }
            var value = 0
            var digits = 0
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                value = value * 10 + Int(bytes[position] - UInt8(ascii: "0"))
                digits += 1
                position += 1
                // Nothing valid comes near this; stopping here keeps `value` from overflowing.
                guard value <= 1_000_000_000 else {
                    throw CloudError.badInput(.file(origin), "Netpbm \(what) is absurdly large")
                }
            }
            guard digits > 0 else {
                throw CloudError.badInput(
                    .file(origin), "Netpbm header is missing its \(what)\(position >= bytes.count ? " (truncated)" : "")")
            }
            return value
        }
    }
}
