import CloudCore

/// RVL, A. D. Wilson's lossless depth coding ("Fast Lossless Depth Image Compression", ISS 2017),
/// written from the paper's description: the pixels in row order alternate runs of zeros (no
/// depth) and runs of valid values; each run's length, and each valid value's difference from the
/// previous valid value (zigzag-mapped to a natural number), is a variable-length code of 4-bit
/// nibbles, 3 bits of the value each, least significant first, the high bit set when more
/// follow. Nibbles fill 32-bit words from the most significant end; words are stored
/// little-endian, and the last one is padded with zero nibbles. One pass each way, no tables:
/// several times faster than PNG's deflate at a similar size on Kinect-class depth.
public enum RVL {
    public static func encode(_ depth: [UInt16]) -> [UInt8] {
        var writer = NibbleWriter(capacity: depth.count)
        var previous: Int32 = 0
        var i = 0
        while i < depth.count {
            let zerosStart = i
            while i < depth.count && depth[i] == 0 { i += 1 }
            writer.code(UInt32(i - zerosStart))
            let valuesStart = i
            while i < depth.count && depth[i] != 0 { i += 1 }
            writer.code(UInt32(i - valuesStart))
            for value in depth[valuesStart..<i] {
                let delta = Int32(value) - previous
                writer.code(UInt32(bitPattern: (delta << 1) ^ (delta >> 31)))
                previous = Int32(value)
            }
        }
        return writer.finish()
    }

    /// `count` pixels from `bytes`. A code that runs past the data, a run past the image, a value
    /// outside 16 bits or words left over after the image is whole are bad input, named by `origin`.
    public static func decode(_ bytes: UnsafeRawBufferPointer, count: Int, origin: String) throws -> [UInt16] {
        guard bytes.count % 4 == 0 else {
            throw CloudError.badInput(.file(origin), "RVL data of \(bytes.count) bytes is not a whole number of 32-bit words")
        }
        var reader = NibbleReader(bytes)
        var depth = [UInt16](repeating: 0, count: count)
        var previous: Int32 = 0
        var i = 0
        func run(_ what: String) throws -> Int {
            guard let length = reader.code(), length <= count - i else {
                throw CloudError.badInput(.file(origin), "RVL \(what) past the \(count) pixels of the image at pixel \(i)")
            }
            return Int(length)
        }
        while i < count {
            i += try run("run of empty pixels")
            let values = try run("run of depth values")
            for _ in 0..<values {
                guard let code = reader.code() else { throw CloudError.badInput(.file(origin), "RVL data ends at pixel \(i) of \(count)") }
                let value = previous + (Int32(bitPattern: code >> 1) ^ -Int32(bitPattern: code & 1))
                guard (1...65535).contains(value) else {
                    throw CloudError.badInput(.file(origin), "RVL value \(value) at pixel \(i) is not a 16-bit depth")
                }
                depth[i] = UInt16(value)
                previous = value
                i += 1
            }
        }
        guard reader.wordsLeft == 0, reader.restIsPadding else {
            throw CloudError.badInput(.file(origin), "RVL data goes on after the \(count) pixels of the image")
        }
        return depth
    }
}

/// Nibbles into 32-bit words, most significant first.
private struct NibbleWriter {
    var bytes: [UInt8] = []
    var word: UInt32 = 0
    var nibbles = 0

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func code(_ value: UInt32) {
        var value = value
        repeat {
            var nibble = value & 7
            value >>= 3
            if value != 0 { nibble |= 8 }
            word = word << 4 | nibble
            nibbles += 1
            if nibbles == 8 { flush() }
        } while value != 0
    }

    mutating func flush() {
        withUnsafeBytes(of: word.littleEndian) { bytes.append(contentsOf: $0) }
        (word, nibbles) = (0, 0)
    }

    mutating func finish() -> [UInt8] {
        if nibbles > 0 {
            word <<= UInt32(4 * (8 - nibbles))
            flush()
        }
        return bytes
    }
}

/// Nibbles out of 32-bit words, most significant first.
private struct NibbleReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0
    var word: UInt32 = 0
    var nibblesLeft = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var wordsLeft: Int { (bytes.count - offset) / 4 }
    /// The nibbles left in the current word are the encoder's zero padding (what was read has
    /// been shifted out, and zeros shifted in behind it).
    var restIsPadding: Bool { word == 0 }

    mutating func nibble() -> UInt32? {
        if nibblesLeft == 0 {
            guard offset + 4 <= bytes.count else { return nil }
            word = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            offset += 4
            nibblesLeft = 8
        }
        nibblesLeft -= 1
        let nibble = word >> 28
        word <<= 4
        return nibble
    }

    /// One variable-length code; nil when the data ends inside it or it holds more than 32 bits.
    mutating func code() -> UInt32? {
        var value: UInt32 = 0
        var shift: UInt32 = 0
        while true {
            guard let nibble = nibble(), shift < 32 else { return nil }
            let bits = nibble & 7
            guard shift < 30 || bits >> (32 - shift) == 0 else { return nil }
            value |= bits << shift
            if nibble & 8 == 0 { return value }
            shift += 3
        }
    }
}
