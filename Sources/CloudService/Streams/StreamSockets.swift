import CloudCapture
import CloudCore
import CloudStream
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import NIOCore
import NIOFoundationEssentialsCompat
import NIOWebSocket
import Prometheus
import SafeIO

/// The two WebSockets of a stream: `push` takes a client's frames, `live` sends each viewer the
/// newest frame's cloud. Both are upgrades that the WebSocket router accepts only for a stream
/// that exists, behind the same Host, Origin and token checks as every route (a browser, which
/// cannot set Authorization on a WebSocket, offers the token as the subprotocol `bearer.TOKEN`
/// beside `cloudgen`). Everything refused after the upgrade is refused with a close code and
/// the problem in the close reason.
struct StreamSockets {
    let hub: StreamHub
    /// Where pushed frames are decoded and back-projected, off Swift's cooperative threads.
    let pool: WorkerPool
    let metrics: ServiceMetrics

    func addRoutes(to router: Router<BasicWebSocketRequestContext>) {
        router.ws("/v1/streams/{id}/push", shouldUpgrade: accept) { inbound, outbound, context in
            guard let stream = try? hub.stream(context.requestContext.parameters.get("id")) else { return }
            try await push(stream, inbound, outbound)
        }
        router.ws("/v1/streams/{id}/live", shouldUpgrade: accept) { inbound, outbound, context in
            guard let stream = try? hub.stream(context.requestContext.parameters.get("id")) else { return }
            try await live(stream, query: context.request.uri, inbound, outbound)
        }
    }

    /// Upgrades a request for a stream that exists (a 404 otherwise, from the HTTP routes), and
    /// names the `cloudgen` subprotocol when the client offered it.
    private func accept(_ request: Request, _ context: BasicWebSocketRequestContext) async throws -> RouterShouldUpgrade {
        _ = try hub.stream(context.parameters.get("id"))
        let offered = StreamSockets.offeredProtocols(request.head)
        return .upgrade(offered.contains("cloudgen") ? [.secWebSocketProtocol: "cloudgen"] : [:])
    }

    /// Refuses (a 404 `Problem`) an upgrade to anything but an open stream's push or live socket.
    static func checkTarget(_ path: String, hub: StreamHub) throws {
        let parts = path.prefix { $0 != "?" }.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "v1", parts[2] == "streams", ["push", "live"].contains(parts[4]) else {
            throw Problem.notFound(
                "no WebSocket at \(MessageTextShort.of(String(path.prefix { $0 != "?" }))); a stream's are /v1/streams/{id}/push and /v1/streams/{id}/live"
            )
        }
        _ = try hub.stream(String(parts[3]))
    }

    static func offeredProtocols(_ head: HTTPRequest) -> [String] {
        head.headerFields[values: .secWebSocketProtocol].flatMap { $0.split(separator: ",") }.map {
            $0.trimmingCharacters(in: .whitespaces)
        }
    }

    // MARK: push

    private func push(_ stream: LiveStream, _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter) async throws {
        guard stream.claimPush() else {
            return try await outbound.close(.tryAgainLater, reason: "another client is pushing to this stream")
        }
        defer { stream.releasePush() }
        guard case .push(let calibration, let units, let encoding) = stream.order.feed else {
            return try await outbound.close(.policyViolation, reason: "this stream runs a source on the server; it takes no pushed frames")
        }
        let origin = "stream \(stream.id)"
        let limits = hub.limits
        let idle = IdleWatch(seconds: limits.idleSeconds)
        let outcome: Closing? = try await withThrowingTaskGroup(of: Closing?.self) { group in
            group.addTask {
                await idle.wait()
                return Closing(.goingAway, "no frame for \(Int(limits.idleSeconds)) s; push again to go on")
            }
            group.addTask {
                for try await message in inbound.messages(maxSize: limits.maxPushBytes) {
                    idle.touch()
                    guard case .binary(let buffer) = message else {
                        return Closing(.unacceptableData, "frames are binary messages (length, JSON header, payloads)")
                    }
                    if stream.isEnded { return nil }
                    let received = StreamClock.now()
                    let bytes = Data(buffer: buffer, byteTransferStrategy: .noCopy)
                    do {
                        let frame = try await pool.run {
                            try stream.maker.claimed { claim in
                                var (captured, header, jpeg) = try PushFrame.decode(
                                    bytes, intrinsics: { try calibration.intrinsics(forDepthWidth: $0, height: $1) },
                                    depthUnitsPerMetre: units, origin: origin)
                                if encoding != .standard { captured.depth = try Self.stored(captured.depth, encoding, units, origin) }
                                let frame = try stream.maker.make(
                                    captured, index: header.frame, capturedAt: header.captured, received: received,
                                    range: stream.currentRange, jpeg: jpeg, claim: claim)
                                try stream.record(captured)
                                return frame
                            }
                        }
                        if let frame { stream.publish(frame) }
                        metrics.streamFrames.increment()
                    } catch let error as CloudError where error.kind == .budget {
                        // A frame that could never fit this server's limits: 1009, too big to process.
                        return Closing(.messageTooLarge, FieldWording.detail(error))
                    } catch let error as CloudError where error.kind == .deviceOrIO {
                        // The server's failure, not the frame's; its message may name the server's files.
                        return Closing(.unexpectedServerError, "the server failed to make the frame; push again later")
                    } catch let error as CloudError {
                        return Closing(.dataInconsistentWithMessage, FieldWording.detail(error))
                    } catch let full as RecordingFull {
                        return Closing(.unexpectedServerError, full.reason)
                    } catch let problem as Problem where problem.status == .serviceUnavailable {
                        // The decoding threads are all busy: this frame is dropped, the next may pass.
                        metrics.streamFramesDropped.increment()
                    } catch is MemoryBusy {
                        // The memory this frame needs is the server's other work's for now: dropped too.
                        metrics.streamFramesDropped.increment()
                    } catch is CancellationError {
                        // The stream ended during the frame's filters.
                        return nil
                    }
                }
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        if let outcome { try await outbound.close(outcome.code, reason: outcome.reason) }
    }

    /// A pushed depth plane read as `encoding` stores its samples (SUN's rotated bits, NYU's disparity).
    private static func stored(_ depth: CapturedFrame.Depth, _ encoding: DepthFileEncoding, _ units: Double, _ origin: String) throws
        -> CapturedFrame.Depth
    {
        let samples = depth.data.withUnsafeBytes { raw in
            (0..<depth.width * depth.height).map { UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self)) }
        }
        return try encoding.plane(samples, width: depth.width, height: depth.height, unitsPerMetre: units, origin: origin)
    }

    // MARK: live

    private func live(
        _ stream: LiveStream, query uri: HummingbirdCore.URI, _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter
    ) async throws {
        let wanted: LiveQuery
        do {
            wanted = try LiveQuery(uri)
        } catch let problem as Problem {
            return try await outbound.close(.policyViolation, reason: problem.detail)
        }
        guard let (viewer, frames) = stream.addViewer() else {
            let reason = stream.isEnded ? "the stream has ended" : "the stream has its \(hub.limits.maxViewers) viewers (--max-viewers)"
            return try await outbound.close(.tryAgainLater, reason: reason)
        }
        defer { stream.removeViewer(viewer) }
        let sentAll: Bool = try await withThrowingTaskGroup(of: Bool.self) { group in
            // A viewer sends nothing, but its close (and pings) must be read; when it goes, so does this.
            group.addTask {
                for try await _ in inbound {}
                return false
            }
            group.addTask {
                var last: Int?
                for await frame in frames {
                    let skipped = last.map { max(0, frame.index - $0 - 1) } ?? 0
                    let message = try frame.message(
                        budget: wanted.points, depth: wanted.depth, color: wanted.color, framing: last == nil ? wanted.framing : nil,
                        skipped: skipped)
                    try await outbound.writeBinaryMessage(ByteBuffer(data: message.encoded))
                    last = frame.index
                }
                return true
            }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
        guard sentAll else { return }
        if let problem = stream.endProblem {
            let header = LiveHeader(
                frame: -1, captured: 0, received: 0, sent: StreamClock.now(), points: 0, total: 0, origin: [0, 0, 0], scale: 0,
                depth: nil, color: nil, event: "problem", detail: problem)
            try await outbound.writeBinaryMessage(ByteBuffer(data: try StreamMessage(header: header, payloads: []).encoded))
            try await outbound.close(.unexpectedServerError, reason: problem)
        } else {
            try await outbound.close(.normalClosure, reason: "the stream was ended")
        }
    }
}

/// A close code and its reason, cut to the 123 bytes a close frame has room for.
struct Closing: Sendable {
    let code: WebSocketErrorCode
    let reason: String

    init(_ code: WebSocketErrorCode, _ reason: String) {
        self.code = code
        self.reason = Closing.fit(reason)
    }

    static func fit(_ text: String, bytes: Int = 123) -> String {
        guard text.utf8.count > bytes else { return text }
        var cut = ""
        for character in text {
            if cut.utf8.count + character.utf8.count > bytes - 3 { break }
            cut.append(character)
        }
        return cut + "..."
    }
}

extension WebSocketOutboundWriter {
    func close(_ code: WebSocketErrorCode, reason: String) async throws {
        try await close(code, reason: Closing.fit(reason) as String?)
    }
}

extension WebSocketErrorCode {
    /// 1013, the server's limits (RFC 6455's registry): the client may come back later.
    static let tryAgainLater = WebSocketErrorCode(codeNumber: 1013)
}

/// `?points=N&depth=1&color=1&width=W&height=H` of the live socket.
struct LiveQuery {
    var points = 50_000
    var depth = false
    var color = false
    /// The viewer's picture size: its first frame comes with the camera that frames it there.
    var framing: (width: Int, height: Int)?

    init(_ uri: HummingbirdCore.URI) throws {
        let parameters = uri.queryParameters
        for (key, value) in parameters {
            switch String(key) {
            case "points":
                guard let n = Int(String(value)), CloudViewRoute.budgets.contains(n) else {
                    throw Problem.badRequest("points \(MessageTextShort.of(String(value))): needs a whole number 1...2000000")
                }
                points = n
            case "width", "height":
                guard let n = Int(String(value)), (16...4096).contains(n) else {
                    throw Problem.badRequest("\(key) \(MessageTextShort.of(String(value))): needs a whole number of pixels 16...4096")
                }
                framing = key == "width" ? (n, framing?.height ?? 480) : (framing?.width ?? 640, n)
            case "depth": depth = try Self.flag(String(value), "depth")
            case "color": color = try Self.flag(String(value), "color")
            default:
                throw Problem.badRequest(
                    "unknown query parameter \(MessageTextShort.of(String(key))); live takes points, depth, color, width, height")
            }
        }
    }

    private static func flag(_ value: String, _ name: String) throws -> Bool {
        switch value {
        case "1", "true": return true
        case "0", "false": return false
        default: throw Problem.badRequest("\(name) \(MessageTextShort.of(value)): needs 1 or 0")
        }
    }
}

/// Wakes `wait()` once no `touch()` came for `seconds`.
final class IdleWatch: @unchecked Sendable {
    private let seconds: Double
    private let lock = NSLock()
    private var last = Date()

    init(seconds: Double) {
        self.seconds = seconds
    }

    func touch() { lock.withLock { last = Date() } }

    func wait() async {
        while !Task.isCancelled {
            let due = lock.withLock { last.addingTimeInterval(seconds) }
            let left = due.timeIntervalSinceNow
            if left <= 0 { return }
            try? await Task.sleep(for: .seconds(min(left, 1)))
        }
    }
}
