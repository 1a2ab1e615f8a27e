import CloudCapture
import CloudCore
import CloudStream
import Foundation
import HTTPTypes
import Prometheus
import SafeIO

/// Feeds a stream from a source the server opens (the simulated camera, a device, an allowed
/// dataset). A thread of its own keeps the pace and waits for an audience; each frame is read and
/// made on the stream pool, as pushed frames are, so that server-run streams count against
/// `--workers` like every other piece of work. A recording is replayed from its start when it
/// ends, so the stream runs until it is ended; a source that fails ends the stream with its reason.
enum SourceStreamRunner {
    /// The pace when neither `fps` nor the source's own timestamps give one.
    static let defaultFPS = 30.0

    static func start(_ stream: LiveStream, hub: StreamHub, pool: WorkerPool, metrics: ServiceMetrics, fps: Double?) {
        let thread = Thread {
            do {
                try run(stream, pool: pool, metrics: metrics, fps: fps)
            } catch is CancellationError {
                // The stream ended during a frame's filters.
            } catch {
                let message = (error as? CloudError).map { FieldWording.detail($0) } ?? (error as? RecordingFull)?.reason ?? "\(error)"
                hub.end(stream, problem: "the source failed: \(message)")
            }
        }
        thread.name = "cloudgen-stream-\(stream.id)"
        thread.start()
    }

    private static func run(_ stream: LiveStream, pool: WorkerPool, metrics: ServiceMetrics, fps: Double?) throws {
        let order = stream.order.capture
        let stop = stream.stop
        var index = 0
        // The source's own clock sets the pace of a recording unless `fps` does.
        var pacer = FramePacer(fps.map { .fixed($0) } ?? .timestamps, fallbackInterval: 1 / defaultFPS)
        while !stop.isRaised {
            guard let spec = order.source else { throw CloudError.badInput("a server-run stream needs a source") }
            let source = OpenSource(try spec.open(options: order.options))
            var delivered = false
            while !stop.isRaised {
                // Frames no one watches or records are not made: the source waits, paced again once someone comes.
                while !stream.hasAudience && !stop.isRaised {
                    Thread.sleep(forTimeInterval: 0.05)
                    pacer.restart()
                }
                let frameIndex = index
                let outcome: (frame: LiveFrame, timestamp: Double)?
                do {
                    outcome = try pool.runWaiting {
                        var timestamp = 0.0
                        let frame = try stream.maker.claimed { claim -> LiveFrame? in
                            guard let captured = try source.next() else { return nil }
                            timestamp = captured.timestamp
                            let now = StreamClock.now()
                            let frame = try stream.maker.make(
                                captured, index: frameIndex, capturedAt: now, received: now, range: stream.currentRange, jpeg: nil,
                                claim: claim)
                            try stream.record(captured)
                            return frame
                        }
                        return frame.map { ($0, timestamp) }
                    }
                } catch let busy as Problem where busy.status == .serviceUnavailable {
                    // The stream threads are all busy: this frame is skipped, the next may pass.
                    metrics.streamFramesDropped.increment()
                    Thread.sleep(forTimeInterval: 1 / defaultFPS)
                    continue
                } catch is MemoryBusy {
                    metrics.streamFramesDropped.increment()
                    Thread.sleep(forTimeInterval: 1 / defaultFPS)
                    continue
                }
                guard let (frame, timestamp) = outcome else { break }
                delivered = true
                if let due = pacer.departure(timestamp: timestamp, now: FramePacer.now()), due > FramePacer.now() {
                    Thread.sleep(forTimeInterval: due - FramePacer.now())
                }
                stream.publish(frame)
                metrics.streamFrames.increment()
                index += 1
            }
            guard delivered || stop.isRaised else { throw CloudError.io(.source(source.name), "the source delivered no frame") }
        }
    }
}

/// A source opened for a stream, read by whichever stream thread makes its next frame (one at a
/// time: the stream's own thread waits for each).
private final class OpenSource: @unchecked Sendable {
    private let source: any DepthSource

    init(_ source: any DepthSource) {
        self.source = source
    }

    var name: String { source.name }

    func next() throws -> CapturedFrame? { try source.nextFrame() }
}

/// Raised once, read from another thread.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false

    var isRaised: Bool { lock.withLock { raised } }

    func raise() { lock.withLock { raised = true } }
}
