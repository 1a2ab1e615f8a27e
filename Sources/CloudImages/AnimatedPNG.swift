import CImageCodecs
import CloudCore

/// Animated PNG (APNG) assembly. Debian's libpng has no APNG support, so each frame is encoded by
/// libpng as an ordinary PNG and its compressed data re-wrapped: the first frame's IDAT chunks stay
/// IDAT (a reader without APNG support shows that frame), every later frame's become fdAT chunks,
/// and each frame gets an fcTL chunk; sequence numbers run over fcTL and fdAT together, as the
/// APNG specification requires.
public enum AnimatedPNG {
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    public struct Chunk: Equatable, Sendable {
        public var type: String
        public var data: [UInt8]
    }

    /// The chunks of a PNG file, CRCs checked. `origin` names the file in errors.
    public static func chunks(of png: [UInt8], origin: String) throws -> [Chunk] {
        guard png.count >= 8, Array(png[0..<8]) == signature else {
            throw CloudError.badInput(.file(origin), "not a PNG file (no PNG signature)")
        }
        var chunks: [Chunk] = []
        var offset = 8
        while offset < png.count {
            guard png.count - offset >= 12 else { throw CloudError.badInput(.file(origin), "truncated chunk at byte \(offset)") }
            let length = Int(readBE32(png, offset))
            guard length <= png.count - offset - 12 else {
                throw CloudError.badInput(.file(origin), "chunk at byte \(offset) claims \(length) bytes, past the end of the file")
            }
            let typeBytes = png[(offset + 4)..<(offset + 8)]
            let data = Array(png[(offset + 8)..<(offset + 8 + length)])
            let stored = readBE32(png, offset + 8 + length)
            let computed = png.withUnsafeBufferPointer { cic_crc32(0, $0.baseAddress! + offset + 4, length + 4) }
            let type = String(decoding: typeBytes, as: UTF8.self)
            guard stored == computed else { throw CloudError.badInput(.file(origin), "chunk \(type) at byte \(offset) has a bad CRC") }
            chunks.append(Chunk(type: type, data: data))
            offset += 12 + length
        }
        return chunks
    }

    /// One APNG file from PNG files of identical header (size, depth, color type), shown
    /// `delayMilliseconds` each, looping forever.
    public static func assemble(frames: [[UInt8]], delayMilliseconds: Int, origin: String) throws -> [UInt8] {
        guard !frames.isEmpty else { throw CloudError.badInput(.file(origin), "an animation needs at least one frame") }
        guard (1...65535).contains(delayMilliseconds) else {
            throw CloudError.badInput(.file(origin), "frame delay \(delayMilliseconds) ms is outside 1...65535")
        }
        var header: [UInt8]?
        var out = signature
        var sequence: UInt32 = 0
        for (index, frame) in frames.enumerated() {
            let chunks = try chunks(of: frame, origin: "\(origin) frame \(index)")
            guard let ihdr = chunks.first, ihdr.type == "IHDR", ihdr.data.count == 13 else {
                throw CloudError.badInput("\(origin) frame \(index): the PNG does not start with an IHDR chunk")
            }
            if let header {
                guard ihdr.data == header else {
                    throw CloudError.badInput("\(origin) frame \(index): its size or pixel format differs from frame 0")
                }
            } else {
                header = ihdr.data
                appendChunk("IHDR", ihdr.data, to: &out)
                appendChunk("acTL", be32(UInt32(frames.count)) + be32(0), to: &out)
            }
            // fcTL: sequence, width, height, x and y offsets, delay as a fraction of a second,
            // dispose op 0 (none) and blend op 0 (source: each frame replaces the whole canvas).
            let control =
                be32(sequence) + Array(ihdr.data[0..<8]) + be32(0) + be32(0)
                + be16(UInt16(delayMilliseconds)) + be16(1000) + [0, 0]
            appendChunk("fcTL", control, to: &out)
            sequence += 1
            for chunk in chunks where chunk.type == "IDAT" {
                if index == 0 {
                    appendChunk("IDAT", chunk.data, to: &out)
                } else {
                    appendChunk("fdAT", be32(sequence) + chunk.data, to: &out)
                    sequence += 1
                }
            }
        }
        appendChunk("IEND", [], to: &out)
        return out
    }

    private static func appendChunk(_ type: String, _ data: [UInt8], to out: inout [UInt8]) {
        let typeAndData = Array(type.utf8) + data
        out += be32(UInt32(data.count))
        out += typeAndData
        out += be32(typeAndData.withUnsafeBufferPointer { cic_crc32(0, $0.baseAddress, $0.count) })
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }

    public static func readBE32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
