import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// multipart/form-data (RFC 7578 over RFC 2046's multipart syntax), parsed as the body streams in:
/// each part's headers once they are complete, then its content in pieces as large as the bytes at
/// hand allow, then its end. It holds at most one chunk plus a boundary's length of the body, and
/// a part's headers only up to `headerLimit`, so no request can make it grow.
///
/// The service reads uploads with it (CloudService's MultipartUpload). Our own rather than multipart-kit's: that one (4.7.1) traps on a header name byte above 0x7F,
/// which let any client stop the server, and cut part content at every CR byte.
public struct MultipartParser {
    public enum Event {
        /// A part begins; its header lines as name and value (names as sent).
        case headers([(name: String, value: String)])
        case content(ArraySlice<UInt8>)
        case end
    }

    public enum Failure: Error, Equatable {
        case malformed(String)
    }

    public static let headerLimit = 16 << 10
    private static let headersEnd = Array("\r\n\r\n".utf8)

    private enum State {
        case preamble, afterDelimiter, headers, content, epilogue
    }

    /// CRLF "--" boundary: what ends a part's content. The body's first delimiter may come without
    /// its CRLF, so the parser starts as if one had been received.
    private let delimiter: [UInt8]
    private var state = State.preamble
    private var pending: [UInt8] = Array("\r\n".utf8)

    public init(boundary: String) {
        delimiter = Array("\r\n--\(boundary)".utf8)
    }

    /// Whether the closing delimiter has been seen: a body that ends before it was cut short.
    public var isComplete: Bool { state == .epilogue }

    public mutating func feed(_ bytes: some Sequence<UInt8>, _ handle: (Event) throws -> Void) throws {
        guard state != .epilogue else { return }
        pending += bytes
        var start = 0
        defer { pending.removeFirst(start) }
        parsing: while start < pending.count {
            switch state {
            case .preamble:
                guard let at = find(delimiter, from: start) else {
                    // Keep what could still be the start of the first delimiter.
                    start = max(start, pending.count - (delimiter.count - 1))
                    break parsing
                }
                start = at + delimiter.count
                state = .afterDelimiter
            case .afterDelimiter:
                // "--" closes the body; otherwise optional blanks, then CRLF and a part's headers.
                while start < pending.count, pending[start] == 0x20 || pending[start] == 0x09 { start += 1 }
                guard start + 2 <= pending.count else { break parsing }
                if pending[start] == 0x2D && pending[start + 1] == 0x2D {
                    state = .epilogue
                    start = pending.count
                } else if pending[start] == 0x0D && pending[start + 1] == 0x0A {
                    // The headers start after this CRLF; it stays, so that CRLF CRLF (no headers
                    // at all) is found like any other end of headers.
                    state = .headers
                } else {
                    throw Failure.malformed("a boundary is followed by neither CRLF nor --")
                }
            case .headers:
                // `start` is at the CRLF before the header lines.
                guard let end = find(Self.headersEnd, from: start) else {
                    if pending.count - start > Self.headerLimit {
                        throw Failure.malformed("a part's headers are longer than \(Self.headerLimit >> 10) KiB")
                    }
                    break parsing
                }
                guard end - start <= Self.headerLimit else {
                    throw Failure.malformed("a part's headers are longer than \(Self.headerLimit >> 10) KiB")
                }
                try handle(.headers(try Self.headerLines(pending[min(start + 2, end)..<end])))
                start = end + 4
                state = .content
            case .content:
                if let at = find(delimiter, from: start) {
                    if at > start { try handle(.content(pending[start..<at])) }
                    try handle(.end)
                    start = at + delimiter.count
                    state = .afterDelimiter
                } else {
                    // All but what could be the start of the delimiter.
                    let safe = pending.count - (delimiter.count - 1)
                    if safe > start {
                        try handle(.content(pending[start..<safe]))
                        start = safe
                    }
                    break parsing
                }
            case .epilogue:
                start = pending.count
            }
        }
    }

    /// The first index at or after `from` where `needle` starts, if all of it is in `pending`.
    private func find(_ needle: [UInt8], from: Int) -> Int? {
        let from = max(0, from)
        guard pending.count - from >= needle.count else { return nil }
        return pending.withUnsafeBufferPointer { haystack -> Int? in
            needle.withUnsafeBufferPointer { needle -> Int? in
                let base = haystack.baseAddress!
                var i = from
                let last = haystack.count - needle.count
                while i <= last {
                    // memchr finds the first byte at memory speed; only there is the rest compared.
                    guard let hit = memchr(base + i, Int32(needle[0]), last - i + 1) else { return nil }
                    let at = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    if memcmp(base + at, needle.baseAddress!, needle.count) == 0 { return at }
                    i = at + 1
                }
                return nil
            }
        }
    }

    /// "Name: value" lines (RFC 9110 field syntax: a token, a colon, the value without its
    /// surrounding blanks); obsolete folded lines are refused.
    static func headerLines(_ bytes: ArraySlice<UInt8>) throws -> [(name: String, value: String)] {
        var lines: [(String, String)] = []
        var rest = bytes[...]
        while !rest.isEmpty {
            let end = rest.firstIndex(of: 0x0D).flatMap { i in i + 1 < rest.endIndex && rest[i + 1] == 0x0A ? i : nil } ?? rest.endIndex
            let line = rest[rest.startIndex..<end]
            rest = end < rest.endIndex ? rest[(end + 2)...] : rest[rest.endIndex...]
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                line[line.startIndex..<colon].allSatisfy(isTokenByte)
            else {
                throw Failure.malformed("a part has a header line that is not NAME: VALUE")
            }
            guard let value = String(validating: line[(colon + 1)...], as: UTF8.self) else {
                throw Failure.malformed("a part's header value is not UTF-8")
            }
            lines.append(
                (
                    String(decoding: line[line.startIndex..<colon], as: UTF8.self),
                    value.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
                ))
        }
        return lines
    }

    /// RFC 9110's tchar: letters, digits and !#$%&'*+-.^_`|~.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default: return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}
