import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection to the live test server that writes exactly the bytes a test gives it: a
/// Host header of another name, half a request, a body that stops. The HTTP clients of the
/// tests (HummingbirdTesting's, AsyncHTTPClient) always send whole, well-formed requests.
final class RawConnection {
    private let descriptor: Int32

    /// `receiveBuffer`: a small socket buffer, for a client that stops reading early.
    init(port: Int, receiveBuffer: Int32? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ECONNREFUSED)
        }
    }

    deinit {
        close(descriptor)
    }

    /// Closes both directions at once, as a client that gives up does.
    func closeNow() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    func send(_ text: String) throws {
        try send(Data(text.utf8))
    }

    func send(_ bytes: Data) throws {
        let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPIPE) }
    }

    /// What the server sends within `seconds` (or until it closes), and whether it closed.
    func receive(for seconds: Double, until stop: (String) -> Bool = { _ in false }) -> (text: String, closed: Bool) {
        var received = Data()
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Date() < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let remaining = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
            guard poll(&poller, 1, min(remaining, 100)) > 0 else { continue }
            let n = recv(descriptor, &buffer, buffer.count, 0)
            if n <= 0 { return (String(decoding: received, as: UTF8.self), true) }
            received.append(contentsOf: buffer[0..<n])
            if stop(String(decoding: received, as: UTF8.self)) { break }
        }
        return (String(decoding: received, as: UTF8.self), false)
    }

    /// The status code of the first answer received within `seconds`, nil if none came.
    func status(within seconds: Double) -> Int? {
        let text = receive(for: seconds, until: { $0.contains("\r\n\r\n") }).text
        return Self.status(of: text)
    }

    static func status(of text: String) -> Int? {
        guard text.hasPrefix("HTTP/1.1 ") else { return nil }
        return Int(text.dropFirst(9).prefix(3))
    }
}
