import CloudCore

/// A NumPy `.npy` file holding one 2-D array of little-endian unsigned 16-bit integers in C order:
/// the depth frames (millimetres) of Stray Scanner versions before 2022, which wrote them with
/// cnpy. The format (numpy.lib.format, NEP 1): the magic `\x93NUMPY`, a version byte pair, the
/// header's length (2 bytes little-endian in version 1, 4 in versions 2 and 3), the header, a
/// Python dict literal `{'descr': '<u2', 'fortran_order': False, 'shape': (192, 256), }` padded
/// with spaces to a newline, then the samples. Nothing else (other types, Fortran order, other
/// ranks, pickled objects) is read.
enum NPYDepth {
    static let magic: [UInt8] = [0x93] + Array("NUMPY".utf8)
    /// NumPy writes headers of well under a kilobyte; version 1 allows 65,535 bytes.
    static let maxHeaderBytes = 65_535

    struct Layout: Equatable {
        var width: Int
        var height: Int
        /// Where the samples begin.
        var offset: Int
    }

    /// The depth plane of a whole .npy file's bytes, `unitsPerMetre` raw units to the metre.
    static func plane(_ bytes: [UInt8], origin: String, unitsPerMetre: Double) throws -> CapturedFrame.Depth {
        let layout = try self.layout(bytes, origin: origin)
        // The samples are little-endian, as the plane is: copied as they are.
        return CapturedFrame.Depth(
            width: layout.width, height: layout.height, encoding: .uint16(unitsPerMetre: unitsPerMetre),
            data: Array(bytes[layout.offset...]))
    }

    /// The header, checked, and that exactly the samples it announces follow it.
    static func layout(_ bytes: [UInt8], origin: String) throws -> Layout {
        func bad(_ problem: String) -> CloudError { .badInput(.file(origin), "\(problem)") }
        guard bytes.count >= 10, Array(bytes[0..<6]) == magic else { throw bad("not a NumPy .npy file (no \\x93NUMPY magic)") }
        let major = bytes[6]
        let lengthBytes: Int
        switch major {
        case 1: lengthBytes = 2
        case 2, 3: lengthBytes = 4
        default: throw bad("NumPy .npy format version \(major).\(bytes[7]) is not read (1, 2 and 3 are)")
        }
        guard bytes.count >= 8 + lengthBytes else { throw bad("truncated in its header") }
        let headerLength = (0..<lengthBytes).reduce(0) { $0 | Int(bytes[8 + $1]) << (8 * $1) }
        let start = 8 + lengthBytes
        guard headerLength <= maxHeaderBytes else { throw bad("a header of \(headerLength) bytes (at most \(maxHeaderBytes) are read)") }
        guard headerLength <= bytes.count - start else {
            throw bad("the header claims \(headerLength) bytes; the file has \(bytes.count - start) after the magic")
        }
        let header = try NPYHeader(Array(bytes[start..<(start + headerLength)]), origin: origin)
        guard header.descr == "<u2" else {
            throw bad(
                "the array holds '\(MessageText.shortened(header.descr, to: 20))'; depth is read as '<u2' (little-endian uint16 millimetres)"
            )
        }
        guard !header.fortranOrder else { throw bad("the array is in Fortran order; C order is read") }
        guard header.shape.count == 2 else {
            throw bad("the array has \(header.shape.count) dimension(s); a depth map has 2 (rows, columns)")
        }
        let (height, width) = (header.shape[0], header.shape[1])
        try ImageLimits.check(width: width, height: height, origin: origin)
        let offset = start + headerLength
        let expected = width * height * 2
        guard bytes.count - offset == expected else {
            throw bad("a \(height)x\(width) uint16 array is \(expected) bytes; the file holds \(bytes.count - offset) after its header")
        }
        return Layout(width: width, height: height, offset: offset)
    }
}

/// The header's dict: exactly the keys descr (a string), fortran_order (True or False) and shape
/// (a tuple of integers), each once, as NumPy writes them.
struct NPYHeader {
    var descr: String
    var fortranOrder: Bool
    var shape: [Int]

    private enum Value {
        case string(String)
        case bool(Bool)
        case tuple([Int])
    }

    init(_ bytes: [UInt8], origin: String) throws {
        func bad(_ problem: String) -> CloudError { .badInput(.file(origin), "the .npy header \(problem)") }
        var i = 0
        func skipSpace() { while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x09 || bytes[i] == 0x0D { i += 1 } }
        func expect(_ c: UInt8) throws {
            skipSpace()
            guard i < bytes.count, bytes[i] == c else { throw bad("expected '\(Character(Unicode.Scalar(c)))' at byte \(i)") }
            i += 1
        }
        func peek() -> UInt8? {
            skipSpace()
            return i < bytes.count ? bytes[i] : nil
        }
        func string() throws -> String {
            skipSpace()
            guard i < bytes.count, bytes[i] == 0x27 || bytes[i] == 0x22 else { throw bad("expected a quoted string at byte \(i)") }
            let quote = bytes[i]
            i += 1
            let begin = i
            // Escapes never occur in the keys and types NumPy writes; a backslash is refused, not interpreted.
            while i < bytes.count, bytes[i] != quote, bytes[i] != 0x5C, bytes[i] >= 0x20, bytes[i] < 0x7F { i += 1 }
            guard i < bytes.count, bytes[i] == quote, i - begin <= 64 else {
                throw bad("has an unterminated or unusual string at byte \(begin - 1)")
            }
            i += 1
            return String(decoding: bytes[begin..<(i - 1)], as: UTF8.self)
        }
        func integer() throws -> Int {
            skipSpace()
            let begin = i
            while i < bytes.count, (0x30...0x39).contains(bytes[i]), i - begin < 10 { i += 1 }
            guard i > begin, let value = Int(String(decoding: bytes[begin..<i], as: UTF8.self)) else {
                throw bad("expected a dimension at byte \(begin)")
            }
            return value
        }
        func word(_ text: String) -> Bool {
            let w = Array(text.utf8)
            guard bytes.count - i >= w.count, Array(bytes[i..<(i + w.count)]) == w else { return false }
            i += w.count
            return true
        }
        func value() throws -> Value {
            switch peek() {
            case 0x27, 0x22: return .string(try string())
            case 0x28:
                i += 1
                var dimensions: [Int] = []
                while peek() != 0x29 {
                    guard dimensions.count < 32 else { throw bad("has a shape of more than 32 dimensions") }
                    dimensions.append(try integer())
                    if peek() == 0x2C { i += 1 } else { break }
                }
                try expect(0x29)
                return .tuple(dimensions)
            default:
                if word("True") { return .bool(true) }
                if word("False") { return .bool(false) }
                throw bad("has a value NumPy does not write at byte \(i)")
            }
        }
        try expect(0x7B)
        var values: [String: Value] = [:]
        while peek() != 0x7D {
            let key = try string()
            try expect(0x3A)
            guard values.updateValue(try value(), forKey: key) == nil else { throw bad("names '\(key)' twice") }
            if peek() == 0x2C { i += 1 } else { break }
        }
        try expect(0x7D)
        skipSpace()
        guard i == bytes.count else { throw bad("has bytes after its dict, at byte \(i)") }
        guard Set(values.keys) == ["descr", "fortran_order", "shape"] else {
            throw bad("has the keys \(values.keys.sorted()); NumPy writes descr, fortran_order and shape")
        }
        guard case .string(let descr)? = values["descr"], case .bool(let fortran)? = values["fortran_order"],
            case .tuple(let shape)? = values["shape"]
        else {
            throw bad("has a key of the wrong type (descr a string, fortran_order True or False, shape a tuple)")
        }
        self.descr = descr
        self.fortranOrder = fortran
        self.shape = shape
    }
}
