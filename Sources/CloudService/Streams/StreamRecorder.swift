import CloudCapture
import CloudCore
import Foundation

/// A stream's frames being kept as a capture bundle (`POST /v1/streams/{id}/record`), in a
/// staging folder of the store: a server that stops mid-recording leaves nothing behind that
/// its next start does not clear away.
final class StreamRecorder: @unchecked Sendable {
    /// The store's staging folder the bundle is written in.
    let folder: URL
    private let store: CaptureStore
    private let writer: BundleWriter
    private let lock = NSLock()
    private var count = 0
    private var unposed = 0
    private var closed = false

    /// Frames a recording may keep: a capture's own limit.
    static let maxFrames = CaptureOrder.maxFrames

    init(store: CaptureStore) throws {
        self.store = store
        folder = try store.makeStaging()
        do {
            writer = try BundleWriter(directory: folder.appendingPathComponent("bundle").path)
        } catch {
            store.abandon(staging: folder)
            throw error
        }
    }

    var bundlePath: String { folder.appendingPathComponent("bundle").path }

    var frames: Int { lock.withLock { count } }

    /// Whether every frame kept has a pose, so that the capture can fuse them.
    var posed: Bool { lock.withLock { unposed == 0 } }

    /// Keeps `frame`; false once the recording holds its most frames (the frame is not kept).
    func append(_ frame: CapturedFrame) throws -> Bool {
        try lock.withLock {
            guard !closed, count < Self.maxFrames else { return false }
            try writer.append(frame: frame)
            count += 1
            if frame.pose == nil { unposed += 1 }
            return true
        }
    }

    /// Writes the bundle's manifest; no frame is kept after it.
    func finish() throws {
        try lock.withLock {
            closed = true
            try writer.finish()
        }
    }

    /// Removes what was kept.
    func discard() {
        lock.withLock { closed = true }
        store.abandon(staging: folder)
    }
}
