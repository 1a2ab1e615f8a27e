import CloudCapture
import CloudCore
import CloudPipeline
import Foundation
import Hummingbird
import NIOFoundationEssentialsCompat

/// The HTTP side of streams: open, list, change, end and record them, and the live page.
/// (The frames themselves go over the WebSockets of `StreamSockets`.)
struct StreamRoutes {
    let hub: StreamHub
    let store: CaptureStore
    let runner: CaptureRunner
    let capturePool: WorkerPool
    /// Where a server-run source's frames are read and made, as pushed frames are.
    let streamPool: WorkerPool
    let metrics: ServiceMetrics
    let allowedDirectories: [String]
    let listening: ListeningAddress

    var collection: RouteCollection<BasicRequestContext> {
        let routes = RouteCollection(context: BasicRequestContext.self)
        routes.post("/v1/streams") { request, _ in try await open(request) }
        routes.get("/v1/streams") { request, _ in
            let links = StreamLinks(request, listening: listening)
            return Response.json(
                try JSONValue.object(["streams": .array(hub.all.map { $0.document(links: links) })]).encoded(), status: .ok)
        }
        routes.get("/v1/streams/{id}") { request, context in
            let stream = try hub.stream(context.parameters.get("id"))
            return Response.json(try stream.document(links: StreamLinks(request, listening: listening)).encoded(), status: .ok)
        }
        routes.patch("/v1/streams/{id}") { request, context in try await change(request, context) }
        routes.delete("/v1/streams/{id}") { _, context -> Response in
            hub.end(try hub.stream(context.parameters.get("id")))
            return Response(status: .noContent)
        }
        routes.post("/v1/streams/{id}/record") { request, context in try await record(request, context) }
        // Reached only without an upgrade (the WebSocket router takes the upgrades).
        for socket in ["push", "live"] {
            routes.get("/v1/streams/{id}/\(socket)") { _, context -> Response in
                _ = try hub.stream(context.parameters.get("id"))
                throw Problem(.upgradeRequired, "GET /v1/streams/{id}/\(socket) is a WebSocket: open it with Upgrade: websocket")
            }
        }
        routes.get("/live/{id}") { _, context in
            // Like /view/{id}, the page holds no data; a wrong id is the socket's 404.
            guard StreamID(try context.parameters.require("id")) != nil else {
                throw Problem.notFound(
                    "no stream \(MessageTextShort.of(context.parameters.get("id") ?? "")): a stream id is 16 lower-case hex digits")
            }
            return Response(
                status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: LivePage.html))
            )
        }
        return routes
    }

    private func open(_ request: Request) async throws -> Response {
        let body = try await request.body.collect(upTo: 64 << 10)
        let order = try StreamOrder.decode(Data(buffer: body), allowed: allowedDirectories)
        // The filters an upload of one such frame would be refused are refused here, for a
        // pushed stream whose calibration says the frames' size; a source's first frame says it.
        if case .push(let intrinsics, _, _) = order.feed, let size = intrinsics.referenceSize {
            try hub.work.admit(
                order.capture.steps, points: size.width * size.height, field: nil,
                cpu: LiveFrameMaker.frameShare(seconds: hub.limits.frameSeconds))
        }
        let stream = try hub.open(order)
        if case .source(let fps) = order.feed {
            SourceStreamRunner.start(stream, hub: hub, pool: streamPool, metrics: metrics, fps: fps)
        }
        let links = StreamLinks(request, listening: listening)
        let answer = JSONValue.object([
            "id": .string(stream.id.description), "push_url": .string(links.push(stream.id)), "live_url": .string(links.live(stream.id)),
            "page": .string(links.page(stream.id))
        ])
        return Response.json(try answer.encoded(), status: .created, headers: [.location: "/v1/streams/\(stream.id)"])
    }

    /// PATCH {"range": "MIN,MAX" | null}: the range later frames are cut to (the page's slider).
    private func change(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let stream = try hub.stream(context.parameters.get("id"))
        let type = request.headers[.contentType]?.lowercased() ?? ""
        guard type.hasPrefix("application/json") || type.hasPrefix("application/merge-patch+json") else {
            throw Problem.unsupportedMediaType(
                "PATCH /v1/streams/{id} takes application/json: {\"range\": \"MIN,MAX\"} or {\"range\": null}")
        }
        let body = try await request.body.collect(upTo: 4 << 10)
        guard case .object(let fields) = try JSONBody.decode(JSONValue.self, from: Data(buffer: body)) else {
            throw Problem.badRequest("the body is not a JSON object")
        }
        if let unknown = fields.keys.sorted().first(where: { $0 != "range" }) {
            throw Problem.badRequest(
                "unknown key \(MessageTextShort.of(unknown)); a stream's range can change, nothing else", field: unknown)
        }
        switch fields["range"] {
        case .null?:
            stream.currentRange = nil
        case .string(let text)?:
            var order = CaptureOrder(source: nil)
            try order.apply(field: "range", value: text)
            stream.currentRange = order.range
        default:
            throw Problem.badRequest("range: needs \"MIN,MAX\" in metres, or null for no limit", field: "range")
        }
        return Response.json(try stream.document(links: StreamLinks(request, listening: listening)).encoded(), status: .ok)
    }

    /// POST {"on": true} starts keeping frames; {"on": false} makes them one capture.
    private func record(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let stream = try hub.stream(context.parameters.get("id"))
        let body = try await request.body.collect(upTo: 4 << 10)
        guard case .object(let fields) = try JSONBody.decode(JSONValue.self, from: Data(buffer: body)), fields.count == 1,
            case .bool(let on)? = fields["on"]
        else {
            throw Problem.badRequest(
                "the body is {\"on\": true} to start recording or {\"on\": false} to stop and store the capture", field: "on")
        }
        if on {
            if DiskSpace.isLow(at: store.staging.path) { throw RecordingFull.noRoom.problem }
            guard try stream.startRecording({ try StreamRecorder(store: store, maxBytes: hub.maxRecordingBytes) }) else {
                throw Problem(.conflict, "stream \(stream.id) is recording already; stop it with {\"on\": false}")
            }
            return Response.json(try JSONValue.object(["recording": .bool(true)]).encoded(), status: .ok)
        }
        guard let recorder = stream.stopRecording() else {
            throw Problem(.conflict, "stream \(stream.id) is not recording; start with {\"on\": true}")
        }
        defer { recorder.discard() }
        guard recorder.frames > 0 else {
            throw Problem.unprocessable("stream \(stream.id) recorded no frame; nothing to store", field: "on")
        }
        do {
            try recorder.finish()
        } catch let full as RecordingFull {
            throw full.problem
        }
        let order = try recordedOrder(stream, recorder)
        let paths = ClientPaths(archiveRoot: recorder.bundlePath)
        let firstFrameOnly = recorder.frames > 1 && order.frameLimit == 1
        var staged: CaptureRunner.Staged
        do {
            staged = try await capture(order, paths: paths, firstFrameOnly: firstFrameOnly)
        } catch let error as CloudError where error.kind == .deviceOrIO && DiskSpace.isLow(at: store.staging.path) {
            // The capture's files did not fit; the message would name the server's folders.
            throw RecordingFull.noRoom.problem
        }
        do {
            // The frames as they came, kept with the capture they made.
            try FileManager.default.moveItem(atPath: recorder.bundlePath, toPath: staged.folder.appendingPathComponent("bundle").path)
        } catch {
            // The system's message names the server's folders; what failed is said without them.
            store.abandon(staging: staged.folder)
            throw DiskSpace.isLow(at: store.staging.path)
                ? RecordingFull.noRoom.problem : Problem(.internalServerError, "cannot keep the recorded frames with their capture")
        }
        staged.record.labels = stream.order.labels
        let record = try await runner.store(staged)
        return Response.json(
            try JSONValue.object(["capture": .string(record.id.description), "frames": .integer(record.frames)]).encoded(),
            status: .created,
            headers: [.location: "/v1/captures/\(record.id)"])
    }

    /// The recording's frames made into a capture, on the capture pool.
    private func capture(_ order: CaptureOrder, paths: ClientPaths, firstFrameOnly: Bool) async throws -> CaptureRunner.Staged {
        try await capturePool.run { cancelled in
            let observer = CollectingObserver(cancelled: cancelled)
            if firstFrameOnly {
                observer.warning(
                    CloudWarning(
                        "the recorded frames have no poses to fuse them by, so the capture is the first frame's cloud; bundle/ keeps them all"
                    ))
            }
            return try runner.capture(order, observer: observer, cancelled: cancelled, paths: paths)
        }
    }

    /// The capture a recording makes: the frames fused by their poses when every one has a pose
    /// (in the world frame), else the first frame; cut to the stream's range, through its filters.
    private func recordedOrder(_ stream: LiveStream, _ recorder: StreamRecorder) throws -> CaptureOrder {
        var order = stream.order.capture
        order.source = .bundle(directory: recorder.bundlePath)
        order.options = SourceOptions()
        order.range = stream.currentRange
        if recorder.posed && recorder.frames > 1 {
            order.frameLimit = nil
            order.fuse = true
            order.frame = .world
        } else {
            order.frameLimit = 1
        }
        do {
            try order.check()
        } catch let problem as Problem {
            throw Problem.unprocessable("the recording cannot be stored: \(problem.detail)", field: "on")
        }
        return order
    }
}
