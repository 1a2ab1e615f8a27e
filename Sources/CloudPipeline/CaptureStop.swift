import CloudCapture
import CloudCore
import Foundation

/// When a capture stops taking frames before its `--frames` count: `--duration` elapsed, Ctrl-C,
/// or a camera that went away after delivering some. In each case the frames in hand are written
/// as usual; a lost camera then still fails the command (exit 3).
struct CaptureStop {
    let source: String
    let duration: Double?
    let observer: CaptureObserver
    private let start = DispatchTime.now().uptimeNanoseconds
    private(set) var lost: DeviceStreamLost?

    init(source: String, duration: Double?, observer: CaptureObserver) {
        self.source = source
        self.duration = duration
        self.observer = observer
    }

    var interrupted: Bool { observer.stopRequested }

    /// Whether to take no further frame.
    var due: Bool {
        if interrupted || lost != nil { return true }
        guard let duration else { return false }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 >= duration
    }

    /// The source's next frame; nil when it has no more, Ctrl-C was pressed while waiting, or the
    /// camera went away after `captured` frames (before the first, that is an error at once).
    mutating func next(from source: DepthSource, captured: Int) throws -> CapturedFrame? {
        do {
            return try source.nextFrame()
        } catch let error as DeviceStreamLost {
            guard captured > 0 else { throw CloudError.io(error.message) }
            // No warning here: the pipeline's final error names the cause once, after the writes.
            lost = error
            return nil
        }
    }

    /// Says that Ctrl-C cut the capture short, once the loop has ended.
    func finish(frames: Int) {
        if interrupted && frames > 0 {
            observer.warning(CloudWarning(.source(source), "interrupted; writing the \(frames) frame\(frames == 1 ? "" : "s") captured"))
        }
    }
}
