import CloudCore

/// The first image file directory of a TIFF structure held in memory, as EXIF (APP1) and the
/// Multi-Picture Format index (APP2) store their tags: byte order, then entries of tag, type,
/// count and value or offset. Offsets count from the structure's first byte (`base`), and every
/// one is checked against `end` before it is followed.
public struct TIFFDirectory: Sendable {
    public struct Entry: Sendable {
        public var tag: UInt16
        public var type: UInt16
        public var count: UInt32
        /// The 4 value-or-offset bytes' position in the bytes.
        public var valueOffset: Int
    }

    public let bigEndian: Bool
    public let base: Int
    public let end: Int
    public private(set) var entries: [Entry] = []

    /// Real directories hold tens of entries; a count this large is a corrupt one.
    static let maxEntries = 1024

    public init(_ bytes: [UInt8], in range: Range<Int>, origin: String) throws {
        func bad(_ problem: String) -> CloudError { .badInput(.file(origin), "\(problem)") }
        guard range.lowerBound >= 0, range.upperBound <= bytes.count, range.count >= 8 else {
            throw bad("a TIFF header needs 8 bytes, there are \(range.count)")
        }
        base = range.lowerBound
        end = range.upperBound
        switch (bytes[base], bytes[base + 1]) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        default: throw bad("the TIFF header's byte order is neither II nor MM")
        }
        let magic = Self.read16(bytes, base + 2, bigEndian)
        guard magic == 42 else { throw bad("the TIFF header's magic number is \(magic), not 42") }
        let first = Int(Self.read32(bytes, base + 4, bigEndian))
        guard first >= 8, first <= range.count - 2 else {
            throw bad("the first directory's offset \(first) lies outside the \(range.count) bytes")
        }
        let count = Int(Self.read16(bytes, base + first, bigEndian))
        guard count <= Self.maxEntries, first + 2 + 12 * count <= range.count else {
            throw bad("the directory's \(count) entries do not fit in the \(range.count) bytes")
        }
        for i in 0..<count {
            let at = base + first + 2 + 12 * i
            entries.append(
                Entry(
                    tag: Self.read16(bytes, at, bigEndian), type: Self.read16(bytes, at + 2, bigEndian),
                    count: Self.read32(bytes, at + 4, bigEndian), valueOffset: at + 8))
        }
    }

    public func entry(_ tag: UInt16) -> Entry? { entries.first { $0.tag == tag } }

    /// A SHORT or LONG entry's first value.
    public func integer(_ tag: UInt16, in bytes: [UInt8]) -> UInt32? {
        guard let entry = entry(tag), entry.count >= 1 else { return nil }
        switch entry.type {
        case 3: return UInt32(Self.read16(bytes, entry.valueOffset, bigEndian))
        case 4: return Self.read32(bytes, entry.valueOffset, bigEndian)
        default: return nil
        }
    }

    /// Where an entry's data of `size` bytes lies: inline when it fits in 4 bytes, else at its offset.
    public func data(of entry: Entry, size: Int, in bytes: [UInt8], origin: String) throws -> Range<Int> {
        if size <= 4 { return entry.valueOffset..<(entry.valueOffset + size) }
        let offset = Int(Self.read32(bytes, entry.valueOffset, bigEndian))
        guard offset <= end - base, size <= end - base - offset else {
            throw CloudError.badInput(
                .file(origin),
                "tag 0x\(String(entry.tag, radix: 16, uppercase: true)) points at \(size) bytes at offset \(offset), outside the \(end - base) bytes"
            )
        }
        return (base + offset)..<(base + offset + size)
    }

    public func read16(_ bytes: [UInt8], _ at: Int) -> UInt16 { Self.read16(bytes, at, bigEndian) }
    public func read32(_ bytes: [UInt8], _ at: Int) -> UInt32 { Self.read32(bytes, at, bigEndian) }

    static func read16(_ bytes: [UInt8], _ at: Int, _ bigEndian: Bool) -> UInt16 {
        let (a, b) = (UInt16(bytes[at]), UInt16(bytes[at + 1]))
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    static func read32(_ bytes: [UInt8], _ at: Int, _ bigEndian: Bool) -> UInt32 {
        let (hi, lo) = (UInt32(read16(bytes, at, bigEndian)), UInt32(read16(bytes, at + 2, bigEndian)))
        return bigEndian ? hi << 16 | lo : lo << 16 | hi
    }
}
