import CloudCore

/// What a cloud file's header declares, after the reader has held it against the file's size.
public struct CloudFileHeader: Equatable, Sendable {
    public var format: CloudFileFormat
    /// PLY binary_big_endian (cloudgen itself writes little endian).
    public var isBigEndian: Bool
    /// The point fields as the file names them (PLY: the vertex element's properties, e.g.
    /// x y z nx ny nz red green blue; PCD: FIELDS, e.g. x y z rgb normal_x ...).
    public var fields: [String]
    /// The points of the cloud: width x height (an organized cloud counts its empty cells).
    public var pointCount: Int
    public var width: Int
    public var height: Int
    /// Byte offset of the point data.
    public var dataOffset: Int
    /// The camera's pose in the cloud's frame, when the file records one other than the identity
    /// (PCD's VIEWPOINT, cloudgen's PLY comment; see `Pose.viewpoint`). nil: a camera-frame cloud,
    /// or a file that says nothing about where it was seen from.
    public var viewpoint: Pose?
    /// The file says its distances have no known scale (cloudgen's `units relative` comment, written
    /// for a cloud from relative depth such as a portrait photo's): not metres.
    public var relativeUnits = false
    /// PLY elements other than the points and their grid, with their counts (`face` 12 in a
    /// mesh): read past, never kept, and reported so that nothing is dropped silently.
    public var otherElements: [Element] = []

    public struct Element: Equatable, Sendable, Encodable {
        public var name: String
        public var count: Int
    }

    /// Organized as PCL defines it: more than one row.
    public var isOrganized: Bool { height > 1 }

    /// The format as its header spells it, byte order included ("PLY binary_big_endian").
    public var formatName: String {
        if case .ply(.binary) = format, isBigEndian { return "PLY binary_big_endian" }
        return format.description
    }
}

/// Limits every cloud file is held to before anything is allocated for what it claims.
enum CloudFileLimits {
    /// The most points cloudgen reads from one file (PCL's clouds index points with 32-bit ints).
    static let maxPoints = 1 << 31
    /// A header that has not ended after this many bytes is not a cloud header.
    static let maxHeaderBytes = 1 << 20

    /// A count from a header: digits only; values past the limit (or past UInt64) come back as
    /// the message saying so, never as a wrapped number.
    static func count(_ token: String, _ what: String, path: String, limit: Int = maxPoints) throws -> Int {
        guard !token.isEmpty, token.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw CloudError.badInput(.file(path), "\(what) '\(token.prefix(40))' is not a count")
        }
        guard let value = Int(token), value <= limit else {
            throw CloudError.badInput(.file(path), "\(what) \(token.prefix(40)) is more than cloudgen reads (at most \(limit))")
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
    let bytes: UnsafeRawBufferPointer
    /// Whether `bytes` reaches the end of the file (a last line may then lack its newline).
    let atEnd: Bool
    /// Offset just past the last line returned.
    private(set) var offset = 0

    init(_ bytes: UnsafeRawBufferPointer, atEnd: Bool) {
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
                tokens.append(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[s..<i]), as: UTF8.self))
                start = nil
            } else if !isSpace, start == nil {
                start = i
            }
        }
        offset = min(end + 1, bytes.count)
        return tokens
    }
}
