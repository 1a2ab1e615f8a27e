import Foundation

/// What a `ServerID` names, so that a job's id is never taken for a capture's.
public protocol ServerIDKind {}
public enum CaptureKind: ServerIDKind {}
public enum JobKind: ServerIDKind {}

public typealias CaptureID = ServerID<CaptureKind>
public typealias JobID = ServerID<JobKind>

/// An id the server makes, never one a client chose: 26 lowercase Crockford base-32 characters,
/// the first 10 the creation time in milliseconds since 1970 (so that ids sort by creation and the
/// index lists newest first by id alone), the other 16 random (80 bits). An id is also a folder
/// name under captures/, so `init?(validating:)` accepts only that exact shape: a path parameter
/// such as `..`, `../x` or `%2e%2e` is refused before anything touches the disk.
public struct ServerID<Kind: ServerIDKind>: Hashable, Comparable, Sendable, CustomStringConvertible, Codable {
    public let rawValue: String

    static var length: Int { 26 }
    private static var timeLength: Int { 10 }

    /// A new id for something created at `date`.
    public init(date: Date = Date()) {
        var generator = SystemRandomNumberGenerator()
        let milliseconds = UInt64(max(0, (date.timeIntervalSince1970 * 1000).rounded()))
        let alphabet = Crockford.alphabet
        var characters = [UInt8](repeating: 0, count: Self.length)
        // 10 characters hold 50 bits: the time's 48 (until the year 10889) with leading zeros.
        for i in 0..<Self.timeLength {
            characters[Self.timeLength - 1 - i] = alphabet[Int((milliseconds >> (5 * UInt64(i))) & 31)]
        }
        for i in Self.timeLength..<Self.length {
            characters[i] = alphabet[Int(generator.next(upperBound: UInt8(32)))]
        }
        rawValue = String(decoding: characters, as: UTF8.self)
    }

    /// The id spelled `text`, or nil unless it has exactly the shape the server makes.
    public init?(validating text: String) {
        let utf8 = text.utf8
        guard utf8.count == Self.length else { return nil }
        guard utf8.allSatisfy({ Crockford.isDigit[Int($0)] }) else { return nil }
        rawValue = text
    }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = Self(validating: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an id: \(text)"))
        }
        self = id
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { rawValue }
}

/// Crockford's base-32 digits in lowercase: no i, l, o or u, so that no two look alike.
private enum Crockford {
    static let alphabet: [UInt8] = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)
    static let isDigit: [Bool] = (0..<256).map { alphabet.contains(UInt8($0)) }
}
