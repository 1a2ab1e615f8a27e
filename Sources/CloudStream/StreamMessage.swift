import CloudCore
import Foundation

/// One message of cloudgen's binary framing, shared by the stream sockets and the cloud a viewer
/// downloads: a 4-byte little-endian length N, N bytes of UTF-8 JSON (the header), then the
/// payloads the header describes, in order. The header says how long each payload is; the
/// framing itself knows only the header's length, so one reader serves every kind of message.
public struct StreamMessage: Equatable, Sendable {
    /// The JSON header's bytes.
    public var header: Data
    /// The payloads, in the order the header lists them.
    public var payloads: [Data]

    /// A header longer than this is refused before it is read: headers are a few hundred bytes,
    /// and a length from a lying client must not decide how much is allocated.
    public static let maxHeaderBytes = 64 * 1024

    public init(header: Data, payloads: [Data]) {
        self.header = header
        self.payloads = payloads
    }

    /// `header` encoded as the message's JSON: snake_case keys, as the service's JSON has them,
    /// sorted, so that equal headers are equal bytes.
    public init<Header: Encodable>(header: Header, payloads: [Data]) throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys]
        self.init(header: try encoder.encode(header), payloads: payloads)
    }

    public var encoded: Data {
        var data = Data(capacity: 4 + header.count + payloads.reduce(0) { $0 + $1.count })
        withUnsafeBytes(of: UInt32(header.count).littleEndian) { data.append(contentsOf: $0) }
        data.append(header)
        for payload in payloads { data.append(payload) }
        return data
    }

    /// Splits `message` into its header and the bytes after it, which the caller cuts into the
    /// payloads its header announces (`payloads(sizes:)`).
    public static func split(_ message: Data, origin: String) throws -> (header: Data, body: Data) {
        guard message.count >= 4 else {
            throw CloudError.badInput("\(origin): a message of \(message.count) bytes is shorter than its 4-byte header length")
        }
        let start = message.startIndex
        let length = message[start..<start + 4].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        guard length <= maxHeaderBytes else {
            throw CloudError.badInput("\(origin): a header of \(length) bytes is longer than the \(maxHeaderBytes) a header may have")
        }
        guard length <= message.count - 4 else {
            throw CloudError.badInput("\(origin): the header says \(length) bytes, but only \(message.count - 4) follow")
        }
        return (message[start + 4..<start + 4 + length], message[(start + 4 + length)...])
    }

    /// The message whose header `decode` reads and whose payloads have the sizes that header
    /// gives: the body must hold exactly those bytes.
    public static func decode<Header: Decodable>(
        _ message: Data, origin: String, as type: Header.Type, sizes: (Header) throws -> [Int]
    ) throws -> (header: Header, payloads: [Data]) {
        let (headerBytes, body) = try split(message, origin: origin)
        let header: Header
        do {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            header = try decoder.decode(Header.self, from: headerBytes)
        } catch {
            throw CloudError.badInput("\(origin): the header is not the JSON this message needs (\(Self.describe(error)))")
        }
        let expected = try sizes(header)
        guard expected.allSatisfy({ $0 >= 0 }) else { throw CloudError.badInput("\(origin): the header gives a negative payload size") }
        let total = expected.reduce(0) { $0.addingReportingOverflow($1).overflow ? Int.max : $0 + $1 }
        guard total == body.count else {
            throw CloudError.badInput("\(origin): the header announces \(total) bytes of payload, but \(body.count) follow")
        }
        var payloads: [Data] = []
        var offset = body.startIndex
        for size in expected {
            payloads.append(body[offset..<offset + size])
            offset += size
        }
        return (header, payloads)
    }

    /// A decoding error as one line: which key, as the JSON spells it, and what was wrong with it.
    static func describe(_ error: Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, _): return "no \(snakeCased(key.stringValue))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let path = context.codingPath.map { snakeCased($0.stringValue) }.joined(separator: ".")
            return path.isEmpty ? "not JSON" : "\(path) has the wrong type"
        default: return "not JSON"
        }
    }

    /// A Swift property's name as the header's key: "pointSize" is "point_size".
    static func snakeCased(_ name: String) -> String {
        name.reduce(into: "") { text, character in
            if character.isUppercase && !text.isEmpty { text.append("_") }
            text.append(character.lowercased())
        }
    }
}
