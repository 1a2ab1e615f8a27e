import CloudCore
import Foundation
import SafeIO

/// `cloudgen serve`'s settings, checked before anything listens.
public struct ServiceConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// The index, the captures and the work folders (Docs/http.md, "Storage").
    public var dataDirectory: String
    /// `--index postgresql://...`: a capture index shared by several servers on one data folder
    /// (Docs/deploy.md); nil for the SQLite index in the data folder.
    public var index: String?
    /// How long a request waits for a connection to that index before it is answered 503 with
    /// Retry-After: the database is down or out of connections.
    public var indexWaitSeconds: Double = 5
    /// A request body larger than this is refused with 413 and nothing of it kept.
    public var maxUploadBytes: Int
    /// Threads for decoding, back-projection, filters and rendering.
    public var workers: Int
    /// Bearer token every request but /healthz must carry; required off loopback.
    public var token: String?
    /// Folders whose datasets a JSON capture request may name (`--allow-dir`).
    public var allowedDirectories: [String]
    /// Host names the server answers to besides loopback's and its own address (`--allow-host`).
    public var allowedHosts: [String] = []
    /// Web origins whose pages may change captures and read answers (`--allow-origin`, CORS).
    public var allowedOrigins: [String] = []
    /// Estimated CPU seconds one request's filter steps may take (`--max-request-seconds`).
    public var maxRequestSeconds: Double = 120
    /// Memory one request's work may hold: a fused cloud, a filter's working set
    /// (`--max-request-memory-mb`). A quarter of the machine's memory, at most 4 GiB, so that a
    /// few requests at once still fit.
    public var maxRequestMemoryBytes: Int = min(4 << 30, Int(ProcessInfo.processInfo.physicalMemory / 4))
    /// A connection must send its next request's head within this many seconds of opening or of
    /// its last answer, and a body may pause no longer (`--idle-timeout`): half-sent headers do
    /// not hold a connection open.
    public var idleTimeoutSeconds: Double = 15
    /// Connections open at once (`--max-connections`); past it the server accepts no more until
    /// one closes, which leaves it file descriptors for its own files.
    public var maxConnections: Int = 256
    /// Bytes all derived files (other encodings, filtered exports, previews) may take on disk
    /// together (`--derived-cache-mb`); past it the least recently used are removed.
    public var derivedCacheBytes: Int = 1 << 30
    /// Streams, viewers per stream, pushed message size and idle time (`--max-streams`, ...).
    public var streams = StreamLimits()
    /// When an uploaded frame's cloud is written (`--store-clouds`): at upload, or on first read
    /// from the inputs kept instead (Docs/reliability.md, "What is durable at 201").
    public var storeClouds = CloudStoring.lazy

    public init(
        host: String = "127.0.0.1", port: Int = 8080, dataDirectory: String = "cloudgen-data",
        maxUploadBytes: Int = 512 << 20, workers: Int = ProcessInfo.processInfo.activeProcessorCount,
        token: String? = nil, allowedDirectories: [String] = []
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.maxUploadBytes = maxUploadBytes
        self.workers = workers
        self.token = token
        self.allowedDirectories = allowedDirectories
    }

    /// Refuses what would expose the service or cannot work, each with the flag to change.
    public func validate() throws {
        try validateValues()
        if !Self.isLoopback(host) && token == nil {
            throw CloudError.badInput(
                "--host \(host): listening beyond this machine needs --token-file FILE (a bearer token every request must carry)")
        }
    }

    /// Refuses each value that cannot work whatever the others are: what one line of a config
    /// file can be blamed for (`validate` adds the rule that ties the host to the token).
    public func validateValues() throws {
        guard (0...65535).contains(port) else { throw CloudError.badInput("--port \(port): needs 0...65535 (0 picks a free port)") }
        guard workers >= 1 && workers <= 256 else { throw CloudError.badInput("--workers \(workers): needs 1...256") }
        guard maxUploadBytes >= 1 << 20 else { throw CloudError.badInput("--max-upload-mb: needs at least 1") }
        guard maxRequestSeconds.isFinite && maxRequestSeconds >= 1 else {
            throw CloudError.badInput("--max-request-seconds \(maxRequestSeconds): needs at least 1")
        }
        guard maxRequestMemoryBytes >= 64 << 20 else { throw CloudError.badInput("--max-request-memory-mb: needs at least 64") }
        guard idleTimeoutSeconds.isFinite && (1...3600).contains(idleTimeoutSeconds) else {
            throw CloudError.badInput("--idle-timeout \(idleTimeoutSeconds): needs 1...3600 seconds")
        }
        guard (1...256).contains(streams.maxStreams) else {
            throw CloudError.badInput("--max-streams \(streams.maxStreams): needs 1...256")
        }
        guard (1...1024).contains(streams.maxViewers) else {
            throw CloudError.badInput("--max-viewers \(streams.maxViewers): needs 1...1024")
        }
        guard derivedCacheBytes >= 1 << 20 else { throw CloudError.badInput("--derived-cache-mb: needs at least 1") }
        guard (8...65536).contains(maxConnections) else {
            throw CloudError.badInput("--max-connections \(maxConnections): needs 8...65536")
        }
        for origin in allowedOrigins
        where !(origin.hasPrefix("http://") || origin.hasPrefix("https://")) || origin.dropFirst(8).contains("/") {
            throw CloudError.badInput(
                "--allow-origin \(MessageTextShort.of(origin)): needs an origin as browsers send it, e.g. https://scans.example:8443 (scheme, name, port; no path)"
            )
        }
        if let index { _ = try PostgresIndexAddress(parsing: index) }
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// The token in `path`: its first line, without spaces around it or its line ending. An empty
    /// or short one is refused, and so is one with anything but printable ASCII: a header's value
    /// reaches the server as text, where every byte that is not valid UTF-8 becomes U+FFFD, so two
    /// different byte strings could match, and a token an HTTP client cannot send is no token.
    public static func readToken(_ path: String) throws -> String {
        let bytes = try InputFile.readAll(path, role: "the token file", limit: 4096)
        let line = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false).first ?? []
        var token = line[...]
        while let last = token.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") {
            token = token.dropLast()
        }
        while let first = token.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { token = token.dropFirst() }
        guard token.allSatisfy({ (0x21...0x7e).contains($0) }) else {
            throw CloudError.badInput(
                "\(path): the token may hold only printable ASCII characters, no spaces (e.g. from `openssl rand -hex 32`)")
        }
        guard token.count >= 16 else {
            throw CloudError.badInput(
                "\(path): the token must be at least 16 characters on the first line (e.g. from `openssl rand -hex 32`)")
        }
        return String(decoding: token, as: UTF8.self)
    }
}

/// When the service writes an uploaded frame's cloud. Captures made on the server's side (a
/// source, an archive, a recorded stream) write it at once either way.
public enum CloudStoring: String, CaseIterable, Sendable {
    /// With the capture, before the 201.
    case eager
    /// Only the inputs as uploaded (and the report) before the 201; the cloud is made from them,
    /// byte for byte the eager one, when a route first reads it, and kept from then on.
    case lazy
}
