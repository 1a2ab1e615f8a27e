import CloudCapture
import CloudCore
import CloudStream
import Foundation

/// Feeds a stream from a source the server opens (the simulated camera, a device, an allowed
/// dataset), on a thread of its own: sources block while they read or wait for a camera. A
/// recording is replayed from its start when it ends, so the stream runs until it is ended;
/// a source that fails ends the stream with its reason.
enum SourceStreamRunner {
    /// The pace when neither `fps` nor the source's own timestamps give one.
    static let defaultFPS = 30.0

    static func start(_ stream: LiveStream, hub: StreamHub, fps: Double?) {
        let stop = StopFlag()
        stream.whenEnded { stop.raise() }
        let thread = Thread {
            do {
                try run(stream, fps: fps, stop: stop)
            } catch {
                let message = (error as? CloudError).map { FieldWording.detail($0) } ?? "\(error)"
                hub.end(stream, problem: "the source failed: \(message)")
            }
        }
        thread.name = "cloudgen-stream-\(stream.id)"
        thread.start()
    }

    private static func run(_ stream: LiveStream, fps: Double?, stop: StopFlag) throws {
        let order = stream.order.capture
        var index = 0
        var next = Date()
        while !stop.isRaised {
            let source = try SourceSpec(parsing: order.sourceSpec).open(options: order.options)
            var previous: Double?
            var delivered = false
            while !stop.isRaised, let captured = try source.nextFrame() {
                // Frames no one watches or records are not made: the source waits, paced again once someone comes.
                while !stream.hasAudience && !stop.isRaised {
                    Thread.sleep(forTimeInterval: 0.05)
                    next = Date()
                }
                delivered = true
                // The source's own clock sets the pace of a recording; the first frame goes at once.
                let interval = fps.map { 1 / $0 } ?? previous.map { captured.timestamp - $0 }.flatMap { $0 > 0 && $0 < 5 ? $0 : nil }
                previous = captured.timestamp
                next = next.addingTimeInterval(interval ?? 1 / defaultFPS)
                if next > Date() { Thread.sleep(until: next) } else { next = Date() }
                let now = StreamClock.now()
                let frame = try stream.maker.make(
                    captured, index: index, capturedAt: now, received: now, range: stream.currentRange, jpeg: nil)
                try stream.record(captured)
                stream.publish(frame)
                index += 1
            }
            guard delivered else { throw CloudError.io(.source(source.name), "the source delivered no frame") }
        }
    }
}

/// Raised once, read from another thread.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false

    var isRaised: Bool { lock.withLock { raised } }

    func raise() { lock.withLock { raised = true } }
}
