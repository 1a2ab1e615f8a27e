import CloudCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The one HTTP request a stream needs (`POST /v1/streams`), over a plain socket: HTTP/1.1 with
/// `Connection: close`, http:// only (a TLS proxy in front of the service is for its pages; a
/// pusher on the same network talks to the service directly). Anything that goes wrong is
/// `CloudError.badInput` about the service's URL, as the CLI reports it.
enum HTTPPost {
    struct Response {
        var status: Int
        var body: Data
    }

    /// An answer larger than this is not the service's: a stream's answer is a few hundred bytes.
    static let maxResponseBytes = 1 << 20
    /// Seconds to connect, and to wait for each piece of the answer.
    static let timeoutSeconds = 30

    static func send(_ url: ServiceURL, path: String, json: Data, token: String?) throws -> Response {
        let socket = try connect(url)
        defer { close(socket) }
        var head = "POST \(url.basePath + path) HTTP/1.1\r\nHost: \(url.hostHeader)\r\nConnection: close\r\n"
        head += "Content-Type: application/json\r\nAccept: application/json\r\nContent-Length: \(json.count)\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        try write(Data((head + "\r\n").utf8) + json, to: socket, url: url)
        return try parse(try readAll(socket, url: url), url: url)
    }

    private static func connect(_ url: ServiceURL) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var addresses: UnsafeMutablePointer<addrinfo>?
        let found = getaddrinfo(url.host, String(url.port), &hints, &addresses)
        guard found == 0, let first = addresses else {
            throw CloudError.badInput("\(url.text): cannot find the host \(url.host) (\(String(cString: gai_strerror(found))))")
        }
        defer { freeaddrinfo(addresses) }
        var problem = "no address"
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let address = next {
            next = address.pointee.ai_next
            let s = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
            guard s >= 0 else { continue }
            // On Linux the send timeout bounds connect(2) too.
            var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
            setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            if Glibc.connect(s, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return s }
            problem = String(cString: strerror(errno))
            close(s)
        }
        throw CloudError.badInput("\(url.text): cannot connect to the service (\(problem))")
    }

    private static func write(_ data: Data, to socket: Int32, url: ServiceURL) throws {
        try data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = Glibc.send(socket, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 && errno == EINTR { continue }
                guard sent > 0 else { throw CloudError.badInput("\(url.text): the service hung up (\(String(cString: strerror(errno))))") }
                offset += sent
            }
        }
    }

    /// Everything the service sends until it closes the connection (it does: `Connection: close`).
    private static func readAll(_ socket: Int32, url: ServiceURL) throws -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            if count == 0 { return data }
            guard count > 0 else {
                let problem = errno == EAGAIN ? "no answer within \(timeoutSeconds) s" : String(cString: strerror(errno))
                throw CloudError.badInput("\(url.text): the service did not answer (\(problem))")
            }
            data.append(contentsOf: buffer[0..<count])
            guard data.count <= maxResponseBytes else {
                throw CloudError.badInput("\(url.text): the answer is longer than \(maxResponseBytes) bytes; not cloudgen's service")
            }
        }
    }

    /// The status and body of a complete HTTP/1.1 answer (a `Content-Length` or chunked body, or
    /// one that ends with the connection).
    static func parse(_ data: Data, url: ServiceURL) throws -> Response {
        func bad(_ problem: String) -> CloudError { .badInput("\(url.text): not an HTTP answer (\(problem)); is this cloudgen serve?") }
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else { throw bad(data.isEmpty ? "no answer" : "no end of headers") }
        let lines = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusWords = lines[0].split(separator: " ")
        guard statusWords.count >= 2, statusWords[0].hasPrefix("HTTP/1."), let status = Int(statusWords[1]) else {
            throw bad("status line \(MessageText.shortened(MessageText.escaped(lines[0]), to: 40))")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let rest = data[end.upperBound...]
        if headers["transfer-encoding"]?.lowercased() == "chunked" {
            return Response(status: status, body: try unchunked(rest, bad))
        }
        if let text = headers["content-length"] {
            guard let length = Int(text), length >= 0, length <= rest.count else { throw bad("a body shorter than its Content-Length") }
            return Response(status: status, body: Data(rest.prefix(length)))
        }
        return Response(status: status, body: Data(rest))
    }

    private static func unchunked(_ data: Data, _ bad: (String) -> CloudError) throws -> Data {
        var body = Data()
        var rest = data[...]
        let newline = Data("\r\n".utf8)
        while true {
            guard let lineEnd = rest.range(of: newline) else { throw bad("a chunk without its size") }
            let sizeText = String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                throw bad("a chunk size that is not hexadecimal")
            }
            rest = rest[lineEnd.upperBound...]
            if size == 0 { return body }
            guard rest.count >= size + 2 else { throw bad("a chunk shorter than its size") }
            body.append(rest.prefix(size))
            rest = rest.dropFirst(size + 2)
        }
    }
}
