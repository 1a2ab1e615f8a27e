import CloudCore
import CloudStream
import Foundation

/// One stream: its order, the newest frame, the viewers waiting for frames, and the recording.
///
/// Each viewer has a buffer of one frame (`AsyncStream.bufferingNewest(1)`): a viewer that
/// falls behind gets the newest frame and is told how many it missed; nothing queues without
/// bound, and a slow viewer never holds up the source or the other viewers.
final class LiveStream: @unchecked Sendable {
    let id: StreamID
    let order: StreamOrder
    let created: Date
    let maker: LiveFrameMaker
    private let maxViewers: Int
    private let lock = NSLock()
    private var viewers: [UUID: AsyncStream<LiveFrame>.Continuation] = [:]
    private var range: ClosedRange<Float>?
    private var framesIn = 0
    private var lastFrame: LiveFrame?
    private var pushing = false
    private var recorder: StreamRecorder?
    /// Why the stream ended, when something other than its owner ended it.
    private var problem: String?
    private var ended = false
    /// Since when no one has pushed, watched or recorded (the stream ends after the idle time).
    private var idleSince: Date? = Date()

    /// Raised when the stream ends: its frames' filters stop between steps, its source's thread stops.
    let stop = StopFlag()

    init(id: StreamID, order: StreamOrder, limits: StreamLimits, work: WorkLimits) {
        self.id = id
        self.order = order
        maxViewers = limits.maxViewers
        created = Date()
        range = order.capture.range
        maker = LiveFrameMaker(origin: "stream \(id)", order: order.capture, limits: work, frameSeconds: limits.frameSeconds, stop: stop)
    }

    /// The range each new frame is cut to (`PATCH`'s `range`, the page's slider).
    var currentRange: ClosedRange<Float>? {
        get { lock.withLock { range } }
        set { lock.withLock { range = newValue } }
    }

    var isEnded: Bool { lock.withLock { ended } }

    /// Whether anyone is watching or recording: a server-run source waits until someone is.
    var hasAudience: Bool { lock.withLock { !viewers.isEmpty || recorder != nil } }

    /// How long the stream has had no pusher, viewer or recording; 0 while it has one.
    func idleSeconds(now: Date = Date()) -> Double {
        lock.withLock { idleSince.map { now.timeIntervalSince($0) } ?? 0 }
    }

    /// Called with the lock held after anything that changes who uses the stream.
    private func noteUse() {
        let used = pushing || !viewers.isEmpty || recorder != nil
        if used {
            idleSince = nil
        } else if idleSince == nil {
            idleSince = Date()
        }
    }

    /// Hands `frame` to every viewer, replacing any frame a viewer has not taken yet.
    func publish(_ frame: LiveFrame) {
        let waiting = lock.withLock {
            framesIn += 1
            lastFrame = frame
            return Array(viewers.values)
        }
        for viewer in waiting { viewer.yield(frame) }
    }

    /// A new viewer's frames, starting with the newest one there is; nil when the stream has its
    /// most viewers or has ended.
    func addViewer() -> (id: UUID, frames: AsyncStream<LiveFrame>)? {
        let (frames, continuation) = AsyncStream<LiveFrame>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        let latest: LiveFrame?? = lock.withLock {
            guard !ended, viewers.count < maxViewers else { return nil }
            viewers[id] = continuation
            noteUse()
            return .some(lastFrame)
        }
        guard let latest else { return nil }
        if let latest { continuation.yield(latest) }
        return (id, frames)
    }

    func removeViewer(_ id: UUID) {
        let removed = lock.withLock {
            defer { noteUse() }
            return viewers.removeValue(forKey: id)
        }
        removed?.finish()
    }

    /// Claims the push socket: one client pushes at a time.
    func claimPush() -> Bool {
        lock.withLock {
            guard !pushing, !ended else { return false }
            pushing = true
            noteUse()
            return true
        }
    }

    func releasePush() {
        lock.withLock {
            pushing = false
            noteUse()
        }
    }

    /// Ends the stream: every viewer's frames finish (after `problem`, when given, is sent them),
    /// and a recording in progress is dropped. Returns false when it had already ended.
    @discardableResult
    func end(problem: String? = nil) -> Bool {
        typealias Ending = (viewers: [AsyncStream<LiveFrame>.Continuation], recorder: StreamRecorder?)
        let ending: Ending? = lock.withLock {
            guard !ended else { return nil }
            ended = true
            self.problem = problem
            defer {
                viewers = [:]
                self.recorder = nil
            }
            return (Array(viewers.values), self.recorder)
        }
        guard let ending else { return false }
        stop.raise()
        ending.viewers.forEach { $0.finish() }
        ending.recorder?.discard()
        return true
    }

    var endProblem: String? { lock.withLock { problem } }

    /// Keeps `frame` in the recording, when one is going.
    func record(_ frame: CapturedFrame) throws {
        _ = try lock.withLock { recorder }?.append(frame)
    }

    /// Starts keeping frames for a capture; false when a recording is already going.
    func startRecording(_ make: () throws -> StreamRecorder) throws -> Bool {
        try lock.withLock {
            guard recorder == nil, !ended else { return false }
            recorder = try make()
            noteUse()
            return true
        }
    }

    /// The recording, taken away from the stream (frames from now on are not kept).
    func stopRecording() -> StreamRecorder? {
        lock.withLock {
            defer {
                recorder = nil
                noteUse()
            }
            return recorder
        }
    }

    /// What GET /v1/streams says of the stream.
    func document(links: StreamLinks) -> JSONValue {
        let (frames, viewerCount, pushing, recorder, range) = lock.withLock {
            (framesIn, viewers.count, self.pushing, self.recorder, self.range)
        }
        return .object([
            "id": .string(id.description),
            "created": .string(created.ISO8601Format()),
            "feed": .string(order.feedDescription),
            "frames": .integer(frames),
            "viewers": .integer(viewerCount),
            "pushing": .bool(pushing),
            "recording": recorder.map { .integer($0.frames) } ?? .null,
            "recording_bytes": recorder.map { .integer($0.bytes) } ?? .null,
            "recording_full": recorder.map { .bool($0.isFull) } ?? .null,
            "range": range.map { .string("\($0.lowerBound),\($0.upperBound)") } ?? .null,
            "push_url": .string(links.push(id)),
            "live_url": .string(links.live(id)),
            "page": .string(links.page(id))
        ])
    }
}

/// A stream's id: 16 random hex digits, as the URL names it.
struct StreamID: Hashable, Sendable, CustomStringConvertible {
    let description: String

    init() {
        description = (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    init?(_ text: String) {
        guard text.count == 16, text.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
        description = text
    }
}
