import CloudCore
import CloudIO

/// What a cloud file's header declares, after HeaderCheck has held it against the file's size.
public struct CloudFileHeader: Equatable, Sendable {
    public var format: CloudFileFormat
    /// PLY binary_big_endian (cloudgen itself writes little endian).
    public var isBigEndian: Bool
    /// Field names as the header spells them (PLY: the vertex element's properties).
    public var fields: [String]
    /// The points PCL makes of the file: width x height.
    public var pointCount: Int
    public var width: Int
    public var height: Int
    /// Byte offset of the point data.
    public var dataOffset: Int
    /// Bytes the point data occupies when the header fixes it (PCD binary and binary_compressed).
    public var dataLength: Int?
    /// The camera's pose in the cloud's frame, when the file records one other than the identity
    /// (PCD's VIEWPOINT, cloudgen's PLY comment; see `Pose.viewpoint`). nil: a camera-frame cloud,
    /// or a file that says nothing about where it was seen from.
    public var viewpoint: Pose?

    /// Organized as PCL defines it: more than one row.
    public var isOrganized: Bool { height > 1 }
}

/// Reads a PCD or PLY header and refuses, with `CloudError.badInput("FILE: what is wrong")`, every
/// file whose header PCL would trust into an absurd allocation or a read past the end: PCL sizes
/// its buffer from the header's counts before it looks at the data. Only the header and a few
/// bytes after it are read (plus a streaming line count for PCD ascii); nothing here allocates
/// in proportion to a claimed count.
enum HeaderCheck {
    /// The most points cloudgen reads from one file (PCL's clouds index points with 32-bit ints).
    static let maxPoints = 1 << 31
    /// A header that has not ended after this many bytes is not a cloud header.
    static let maxHeaderBytes = 1 << 20

    static func check(path: String) throws -> CloudFileHeader {
        // Opened once, read with pread(2): the header and a few bytes after it, never the whole file.
        let file = try InputFile(path)
        var bytes = try file.read(at: 0, count: min(file.size, 1 << 16))
        let isPLY = bytes.starts(with: Array("ply".utf8)) && bytes.count > 3 && (bytes[3] == 0x0A || bytes[3] == 0x0D)
        while true {
            let atEnd = bytes.count == file.size
            if isPLY {
                if let parsed = try PLYHeaderParser(path: path).parse(bytes, atEnd: atEnd) { return try parsed.checkData(file) }
            } else {
                if let parsed = try PCDHeaderParser(path: path).parse(bytes, atEnd: atEnd) { return try parsed.checkData(file) }
            }
            // The header goes on past what was read: read more, up to the limit.
            guard !atEnd else {
                throw CloudError.badInput("\(path): the \(isPLY ? "PLY" : "PCD") header never ends (no \(isPLY ? "end_header" : "DATA") line)")
            }
            guard bytes.count < maxHeaderBytes else {
                throw CloudError.badInput("\(path): no end of the \(isPLY ? "PLY" : "PCD") header within the first \(maxHeaderBytes) bytes")
            }
            bytes = try file.read(at: 0, count: min(file.size, bytes.count * 4, maxHeaderBytes))
        }
    }

    /// A count from a header: digits only; values past the limit (or past UInt64) come back as
    /// the message saying so, never as a wrapped number.
    static func count(_ token: String, _ what: String, path: String, limit: Int = maxPoints) throws -> Int {
        guard !token.isEmpty, token.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw CloudError.badInput("\(path): \(what) '\(token)' is not a count")
        }
        guard let value = Int(token), value <= limit else {
            throw CloudError.badInput("\(path): \(what) \(token) is more than cloudgen reads (at most \(limit))")
        }
        return value
    }

    /// a * b (+ c), or nil past Int.max.
    static func product(_ a: Int, _ b: Int, plus c: Int = 0) -> Int? {
        let (p, overflow) = a.multipliedReportingOverflow(by: b)
        guard !overflow else { return nil }
        let (sum, overflow2) = p.addingReportingOverflow(c)
        return overflow2 ? nil : sum
    }
}

/// Lines of a header held in memory, split into whitespace-separated tokens.
struct HeaderLines {
    let bytes: [UInt8]
    /// Whether `bytes` reaches the end of the file (a last line may then lack its newline).
    let atEnd: Bool
    /// Offset just past the last line returned.
    private(set) var offset = 0

    init(_ bytes: [UInt8], atEnd: Bool) {
        self.bytes = bytes
        self.atEnd = atEnd
    }

    /// The next line's tokens, or nil when the bytes end before the line does.
    mutating func next() -> [String]? {
        guard offset < bytes.count else { return nil }
        let end: Int
        if let newline = bytes[offset...].firstIndex(of: 0x0A) {
            end = newline
        } else if atEnd {
            end = bytes.count
        } else {
            return nil
        }
        var tokens: [String] = []
        var start: Int?
        for i in offset...end {
            let isSpace = i == end || bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0D
            if isSpace, let s = start {
                tokens.append(String(decoding: bytes[s..<i], as: UTF8.self))
                start = nil
            } else if !isSpace, start == nil {
                start = i
            }
        }
        offset = min(end + 1, bytes.count)
        return tokens
    }
}
