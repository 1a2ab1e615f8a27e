import CloudCore
import Foundation
import HTTPTypes
import Hummingbird
import ServiceLifecycle

/// How much streaming one server takes on (`cloudgen serve --max-streams ...`).
public struct StreamLimits: Sendable {
    /// Streams open at once.
    public var maxStreams = 8
    /// Viewers of one stream at once.
    public var maxViewers = 32
    /// The largest pushed message: a 1920x1440 depth in PNG and its JPEG color fit many times.
    public var maxPushBytes = 32 << 20
    /// A stream nobody pushes to or watches for this long ends (a pusher that stops without
    /// closing, a page left open on a dead stream).
    public var idleSeconds: Double = 60
    /// The CPU one frame's filters may take, by their estimate before each step: a live view
    /// keeps up with its camera, and a deleted stream's filter work ends within this.
    public var frameSeconds: Double = 1
    /// The bytes a recording may keep (`--max-recording-mb`); frames past it are not kept. nil:
    /// a quarter of the data folder's free space when the server starts.
    public var maxRecordingBytes: Int?

    public init() {}
}

/// The open streams, by id. Each is a `LiveStream`; a server-run source's stream also has a
/// `SourceStreamRunner` thread feeding it.
final class StreamHub: Service, @unchecked Sendable {
    let limits: StreamLimits
    /// A request's limits, which every frame's work is held to.
    let work: WorkLimits
    private let lock = NSLock()
    private var streams: [StreamID: LiveStream] = [:]

    /// The bytes one recording may keep.
    let maxRecordingBytes: Int

    init(limits: StreamLimits, work: WorkLimits, dataFolder: URL) {
        self.limits = limits
        self.work = work
        maxRecordingBytes = limits.maxRecordingBytes ?? DiskSpace.available(at: dataFolder.path).map { $0 / 4 } ?? 1 << 30
    }

    /// Opens a stream for `order`; 429 when the server has its most streams.
    func open(_ order: StreamOrder) throws -> LiveStream {
        let stream = LiveStream(id: StreamID(), order: order, limits: limits, work: work)
        try lock.withLock {
            guard streams.count < limits.maxStreams else {
                // 429, not 503: the server is well, and a client ending its own stream makes room.
                throw Problem(
                    .tooManyRequests,
                    "the server has its \(limits.maxStreams) streams open (--max-streams); end one with DELETE /v1/streams/{id}",
                    headers: [.retryAfter: "5"])
            }
            streams[stream.id] = stream
        }
        return stream
    }

    /// The stream a path names; 404 for an unknown or ended one.
    func stream(_ text: String?) throws -> LiveStream {
        guard let text, let id = StreamID(text) else {
            throw Problem.notFound("no stream \(MessageTextShort.of(text ?? "")): a stream id is 16 lower-case hex digits")
        }
        guard let stream = lock.withLock({ streams[id] }) else {
            throw Problem.notFound("no stream \(id): it has ended, or never was (GET /v1/streams lists them)")
        }
        return stream
    }

    var all: [LiveStream] {
        lock.withLock { streams.values.sorted { $0.created < $1.created } }
    }

    /// Ends the stream and forgets it; `problem` goes to its viewers.
    func end(_ stream: LiveStream, problem: String? = nil) {
        lock.withLock { streams[stream.id] = nil }
        stream.end(problem: problem)
    }

    /// Ends the streams no one has used for the idle time, every second, until shutdown; then
    /// every stream ends (their sockets close with the server; the sources' threads stop here).
    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            for stream in all where stream.idleSeconds() > limits.idleSeconds {
                end(stream, problem: "no one pushed, watched or recorded for \(Int(limits.idleSeconds)) s")
            }
            try? await Task.sleep(for: .seconds(1))
        }
        endAll()
    }

    func endAll() {
        let open = lock.withLock {
            defer { streams = [:] }
            return Array(streams.values)
        }
        for stream in open { stream.end(problem: "the server is shutting down") }
    }
}

/// The URLs a stream's document gives, on the name the client used to reach the server.
struct StreamLinks {
    /// `host:port` as the request's Host named it, else the address the server listens on.
    let authority: String
    /// Whether the client reached the server over TLS: a proxy in front that ends TLS says so in
    /// `X-Forwarded-Proto` (the links only go back to the client that sent it).
    let secure: Bool

    init(_ request: Request, listening: ListeningAddress) {
        authority = request.head.authority ?? listening.authority
        secure = request.headers[Self.forwardedProto]?.lowercased() == "https"
    }

    func push(_ id: StreamID) -> String { "\(secure ? "wss" : "ws")://\(authority)/v1/streams/\(id)/push" }
    func live(_ id: StreamID) -> String { "\(secure ? "wss" : "ws")://\(authority)/v1/streams/\(id)/live" }
    func page(_ id: StreamID) -> String { "\(secure ? "https" : "http")://\(authority)/live/\(id)" }

    private static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!
}

/// Where the server listens, once it does (port 0 is known only then): what a stream's links
/// name when the request had no Host.
final class ListeningAddress: @unchecked Sendable {
    private let lock = NSLock()
    private var value = "localhost"

    var authority: String {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
