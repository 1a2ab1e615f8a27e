import CloudCore

/// The marker segments of a JPEG held in memory, from its start-of-image marker up to its first
/// scan (ITU-T T.81, annex B): where the application segments (EXIF, XMP, MPF) are. Every length
/// is checked against the bytes there are.
public struct JPEGSegments: Sendable {
    public struct Segment: Sendable {
        public var marker: UInt8
        /// The segment's payload (after its length field), as offsets into the bytes.
        public var payload: Range<Int>
    }

    public private(set) var segments: [Segment] = []

    /// Reads the segments of the JPEG that starts at `start` in `bytes`. `origin` names it in errors.
    public init(_ bytes: [UInt8], start: Int = 0, origin: String) throws {
        func bad(_ problem: String) -> CloudError { .badInput(.file(origin), "corrupt JPEG: \(problem)") }
        guard start >= 0, start + 2 <= bytes.count, bytes[start] == 0xFF, bytes[start + 1] == 0xD8 else {
            throw bad("no start-of-image marker at byte \(start)")
        }
        var offset = start + 2
        while true {
            guard offset + 2 <= bytes.count else { throw bad("the data ends inside its headers") }
            guard bytes[offset] == 0xFF else { throw bad("no segment marker at byte \(offset)") }
            // A marker may be preceded by any number of 0xFF fill bytes.
            while offset + 1 < bytes.count && bytes[offset + 1] == 0xFF { offset += 1 }
            guard offset + 2 <= bytes.count else { throw bad("the data ends inside its headers") }
            let marker = bytes[offset + 1]
            offset += 2
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { continue }
            if marker == 0xDA { return }
            guard marker != 0xD8, marker != 0xD9 else { throw bad("the image ends before its first scan") }
            guard offset + 2 <= bytes.count else { throw bad("the data ends inside a segment's length") }
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            guard length >= 2, offset + length <= bytes.count else {
                throw bad("segment 0xFF\(String(marker, radix: 16, uppercase: true)) at byte \(offset - 2) claims \(length) bytes")
            }
            segments.append(Segment(marker: marker, payload: (offset + 2)..<(offset + length)))
            offset += length
        }
    }

    /// The payloads of the APPn segments (marker 0xE0 + n) whose payload starts with `signature`,
    /// without the signature.
    public func application(_ n: UInt8, signature: [UInt8], in bytes: [UInt8]) -> [Range<Int>] {
        segments.compactMap { segment in
            guard segment.marker == 0xE0 + n, segment.payload.count >= signature.count,
                bytes[segment.payload.prefix(signature.count)].elementsEqual(signature)
            else { return nil }
            return (segment.payload.lowerBound + signature.count)..<segment.payload.upperBound
        }
    }

    /// The XMP packet (APP1 "http://ns.adobe.com/xap/1.0/"), if the JPEG has one.
    public func xmp(in bytes: [UInt8]) -> [UInt8]? {
        application(1, signature: Array("http://ns.adobe.com/xap/1.0/\u{0}".utf8), in: bytes).first.map { Array(bytes[$0]) }
    }
}
