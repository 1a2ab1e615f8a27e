import CloudCore

#if canImport(Glibc)
import Glibc
#endif

/// The lines of an ascii data section, one at a time, through a ByteStream.
struct AsciiLines {
    /// A line longer than this is not a point record.
    static let maxLineBytes = 1 << 20

    var stream: ByteStream
    /// 1-based number of the line last returned, counted from the start of the data.
    private(set) var lineNumber = 0

    /// The next line without its line break, or nil at the end of the data. Valid until the next call.
    mutating func next() throws -> UnsafeRawBufferPointer? {
        guard !stream.atEnd else { return nil }
        var wanted = 4096
        while true {
            let window = try stream.window(atLeast: min(wanted, stream.remaining), atMost: wanted, what: "a line")
            if let newline = window.firstIndex(of: 0x0A) {
                stream.advance(newline + 1)
                lineNumber += 1
                return trimmed(UnsafeRawBufferPointer(rebasing: window[..<newline]))
            }
            if window.count == stream.remaining {  // the last line, without a line break
                stream.advance(window.count)
                lineNumber += 1
                return trimmed(window)
            }
            guard window.count < Self.maxLineBytes else {
                throw CloudError.badInput(
                    .file(stream.path), "line \(lineNumber + 1) of the data is longer than \(Self.maxLineBytes) bytes")
            }
            wanted *= 4  // a long line: look further
        }
    }

    private func trimmed(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var end = line.count
        while end > 0, line[end - 1] == 0x0D { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: line[..<end])
    }
}

/// A line split at spaces and tabs into tokens (byte ranges of the line).
struct AsciiTokens {
    private(set) var ranges: [Range<Int>] = []

    mutating func split(_ line: UnsafeRawBufferPointer) {
        ranges.removeAll(keepingCapacity: true)
        var start = -1
        for i in 0..<line.count {
            let byte = line[i]
            let isSpace = byte == 0x20 || byte == 0x09 || byte == 0x0D
            if isSpace {
                if start >= 0 {
                    ranges.append(start..<i)
                    start = -1
                }
            } else if start < 0 {
                start = i
            }
        }
        if start >= 0 { ranges.append(start..<line.count) }
    }

    var count: Int { ranges.count }
}

/// Strict number parsing for ascii data: the whole token must be the number, integers must fit
/// their type, and anything else ("abc", "1.5x", "", a float in an integer field) is an error
/// rather than the zero a stream extraction leaves behind.
enum AsciiNumber {
    /// The token's value as the field's type reads it; nil when it is not such a number.
    static func value(_ token: UnsafeRawBufferPointer, as type: ScalarType) -> Double? {
        guard !token.isEmpty, token.count < 64 else { return nil }
        if type.isInteger {
            guard let v = integer(token), type.range.contains(v) else { return nil }
            return v
        }
        return double(token)
    }

    /// An unsigned or signed decimal integer (optional sign, digits only), as a Double so that
    /// every type's range fits (uint64 past 2^53 loses low bits, as PCL's float conversion would).
    private static func integer(_ token: UnsafeRawBufferPointer) -> Double? {
        var i = 0
        var negative = false
        if token[0] == UInt8(ascii: "-") || token[0] == UInt8(ascii: "+") {
            negative = token[0] == UInt8(ascii: "-")
            i = 1
        }
        guard i < token.count else { return nil }
        var value = 0.0
        while i < token.count {
            let digit = Int(token[i]) - 0x30
            guard digit >= 0, digit <= 9 else { return nil }
            value = value * 10 + Double(digit)
            i += 1
        }
        return negative ? -value : value
    }

    /// A decimal floating-point number, or nan / inf as C prints them; strtod does the rounding.
    private static func double(_ token: UnsafeRawBufferPointer) -> Double? {
        // strtod takes hexadecimal floats and leading spaces too; a cloud file's numbers are decimal.
        for byte in token {
            switch byte {
            case 0x30...0x39, UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "e"), UInt8(ascii: "E"),
                UInt8(ascii: "n"), UInt8(ascii: "N"), UInt8(ascii: "a"), UInt8(ascii: "A"), UInt8(ascii: "i"), UInt8(ascii: "I"),
                UInt8(ascii: "f"), UInt8(ascii: "F"), UInt8(ascii: "t"), UInt8(ascii: "T"), UInt8(ascii: "y"), UInt8(ascii: "Y"):
                continue
            default:
                return nil
            }
        }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: token.count + 1) { buffer in
            for i in 0..<token.count { buffer[i] = CChar(bitPattern: token[i]) }
            buffer[token.count] = 0
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(buffer.baseAddress!, &end)
            return end == buffer.baseAddress! + token.count ? value : nil
        }
    }
}

/// Stores the values of one record, already decoded (ascii, or a binary row with lists) and held
/// by the file's field index, into a cloud's channels.
struct DecodedRecord {
    let channels: CloudChannels

    func store(_ values: [Double], into output: inout CloudOutput, at i: Int) {
        output.positions[3 * i] = Float(values[channels.x.index])
        output.positions[3 * i + 1] = Float(values[channels.y.index])
        output.positions[3 * i + 2] = Float(values[channels.z.index])
        switch channels.color {
        case let .separate(r, g, b)?:
            for (k, source) in [r, g, b].enumerated() {
                output.colors![3 * i + k] = colorByte(values[source.index], source.type)
            }
        case let .packed(source)?:
            // A packed color is 32 bits: an integer field holds them as its value, a float field
            // (PCL's rgb) as the float's bit pattern.
            let value = values[source.index]
            let bits: UInt32
            switch source.type {
            case .float32: bits = Float(value).bitPattern
            case .int32: bits = UInt32(bitPattern: Int32(value))
            default: bits = UInt32(value)
            }
            output.colors![3 * i] = UInt8(truncatingIfNeeded: bits >> 16)
            output.colors![3 * i + 1] = UInt8(truncatingIfNeeded: bits >> 8)
            output.colors![3 * i + 2] = UInt8(truncatingIfNeeded: bits)
        case nil:
            break
        }
        if let (a, b, c) = channels.normal {
            output.normals![3 * i] = Float(values[a.index])
            output.normals![3 * i + 1] = Float(values[b.index])
            output.normals![3 * i + 2] = Float(values[c.index])
        }
        if let c = channels.curvature {
            output.curvature![i] = Float(values[c.index])
        }
    }
}
