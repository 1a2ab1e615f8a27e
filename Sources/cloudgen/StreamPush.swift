import CloudCapture
import CloudCore
import CloudImages
import CloudStream
import CloudStreamClient
import Foundation

/// `cloudgen stream`'s work: create the stream from the source's first frame, then push frame
/// after frame at the pace asked for, until the source, the limits or Ctrl-C end it.
struct StreamPush {
    var source: DepthSource
    var service: ServiceURL
    var token: String?
    var options: [String: StreamRequest.Value]
    var codec: DepthFrameCodec
    var pace: FramePacer.Pace
    var frameLimit: Int?
    var duration: Double?

    /// Frames pushed.
    func run() async throws -> Int {
        guard let first = try source.nextFrame() else { throw CloudError.badInput(.source(source.name), "has no frames to stream") }
        let request = StreamRequest(intrinsics: first.intrinsics, depthScale: PushFrame.depthScale(of: first), options: options)
        let pusher = try await StreamPusher.start(on: service, token: token, request: request, codec: codec)
        print(pusher.stream.page)
        fflush(nil)  // stdout, for a script waiting on the page address
        do {
            try await pushAll(from: first, to: pusher)
            try await pusher.finish()
        } catch {
            try? await pusher.finish()
            throw error
        }
        return pusher.pushed
    }

    private func pushAll(from first: CapturedFrame, to pusher: StreamPusher) async throws {
        let deadline = duration.map { FramePacer.now() + $0 }
        var pacer = FramePacer(pace)
        var frame: CapturedFrame? = first
        var warnedAboutIntrinsics = false
        while let current = frame, !CaptureInterrupt.requested, pusher.pushed < frameLimit ?? .max {
            if let due = pacer.departure(timestamp: current.timestamp, now: FramePacer.now()),
                !(await wait(until: due, deadline: deadline))
            {
                return
            }
            if let deadline, FramePacer.now() >= deadline { return }
            if current.intrinsics != first.intrinsics && !warnedAboutIntrinsics {
                Console.warning(CloudWarning(.source(source.name), "the frames' intrinsics change; the stream keeps the first frame's"))
                warnedAboutIntrinsics = true
            }
            guard try await pusher.push(current, captured: StreamClock.now(), origin: source.name) else {
                Console.note("the service ended the stream")
                return
            }
            if pusher.pushed < frameLimit ?? .max { frame = try source.nextFrame() }
        }
    }

    /// Sleeps until `time` (seconds on `FramePacer.now()`'s clock) in short steps, so that Ctrl-C
    /// and `--duration` stop a slow pace at once; false when either did.
    private func wait(until time: Double, deadline: Double?) async -> Bool {
        while FramePacer.now() < time {
            if CaptureInterrupt.requested { return false }
            if let deadline, FramePacer.now() >= deadline { return false }
            try? await Task.sleep(nanoseconds: UInt64(max(0, min(time - FramePacer.now(), 0.1)) * 1e9))
        }
        return true
    }
}
