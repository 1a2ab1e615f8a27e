/// One 512-byte tar header block, in the POSIX ustar layout that GNU tar's own format shares
/// (GNU keeps other things where ustar has its name prefix).
struct TarHeader {
    static let blockSize = 512

    enum Format {
        /// "ustar\0" "00": POSIX, whose prefix field continues the name.
        case ustar
        /// "ustar  \0": GNU tar's own.
        case gnu
    }

    let block: [UInt8]
    let format: Format

    /// nil when `block` is not a tar header: no ustar magic, or a checksum that does not add up.
    init?(_ block: [UInt8]) {
        precondition(block.count == Self.blockSize)
        let magic = block[257..<265]
        if magic.elementsEqual(Array("ustar\u{0}00".utf8)) {
            format = .ustar
        } else if magic.elementsEqual(Array("ustar  \u{0}".utf8)) {
            format = .gnu
        } else {
            return nil
        }
        // The sum of all bytes with the checksum field taken as spaces; some old tars summed
        // signed chars, so either sum is accepted.
        guard let stored = Self.number(block[148..<156]) else { return nil }
        var unsigned = 0
        var signed = 0
        for (i, byte) in block.enumerated() {
            let b = (148..<156).contains(i) ? 0x20 : byte
            unsigned += Int(b)
            signed += Int(Int8(bitPattern: b))
        }
        guard stored == unsigned || stored == signed else { return nil }
        self.block = block
    }

    static func isZero(_ block: [UInt8]) -> Bool {
        block.allSatisfy { $0 == 0 }
    }

    var typeFlag: UInt8 { block[156] }

    /// The data size, nil when the field is not a number.
    var size: Int? { Self.number(block[124..<136]) }

    /// The stored name: POSIX ustar's prefix, a slash and the name field; GNU's name field alone
    /// (a longer one comes in a preceding 'L' member).
    var name: [UInt8] {
        let name = Self.field(block[0..<100])
        if format == .ustar {
            let prefix = Self.field(block[345..<500])
            if !prefix.isEmpty { return prefix + [UInt8(ascii: "/")] + name }
        }
        return name
    }

    /// A field's bytes up to its first NUL.
    static func field(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        Array(bytes.prefix { $0 != 0 })
    }

    /// A numeric field: octal digits (leading spaces allowed, ended by a space or NUL), or GNU's
    /// base-256 for large values (first byte 0x80, then big-endian). nil for anything else,
    /// including a negative or an implausibly large value.
    static func number(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard let first = bytes.first else { return nil }
        if first & 0x80 != 0 {
            guard first == 0x80 else { return nil }
            var value = 0
            for byte in bytes.dropFirst() {
                guard value < 1 << 54 else { return nil }
                value = value << 8 | Int(byte)
            }
            return value
        }
        var digits = bytes.drop { $0 == 0x20 }
        if let end = digits.firstIndex(where: { $0 == 0 || $0 == 0x20 }) {
            // Only spaces and NULs may follow the digits.
            guard digits[end...].allSatisfy({ $0 == 0 || $0 == 0x20 }) else { return nil }
            digits = digits[..<end]
        }
        guard !digits.isEmpty else { return nil }
        var value = 0
        for byte in digits {
            guard (0x30...0x37).contains(byte), value < 1 << 60 else { return nil }
            value = value * 8 + Int(byte - 0x30)
        }
        return value
    }
}
