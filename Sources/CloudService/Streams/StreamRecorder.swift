import CloudCapture
import CloudCore
import Foundation
import HTTPTypes

#if canImport(Glibc)
import Glibc
#endif

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
    private var kept = 0
    private var closed = false
    /// Set once a frame did not fit the recording's budget: no frame is kept after it.
    private var fullBudget = false
    /// The bytes the recording may keep (`--max-recording-mb`).
    let maxBytes: Int

    /// Frames a recording may keep: a capture's own limit.
    static let maxFrames = CaptureOrder.maxFrames
    /// Room a frame leaves on the data folder's disk, for the manifest, the capture made from
    /// the recording and everyone else's writes.
    static let diskReserve = 64 << 20

    init(store: CaptureStore, maxBytes: Int) throws {
        self.store = store
        self.maxBytes = maxBytes
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

    /// The bytes of the frames kept.
    var bytes: Int { lock.withLock { kept } }

    /// Whether the recording keeps no more frames: it holds its most frames or bytes.
    var isFull: Bool { lock.withLock { fullBudget || count >= Self.maxFrames } }

    /// Whether every frame kept has a pose, so that the capture can fuse them.
    var posed: Bool { lock.withLock { unposed == 0 } }

    /// Keeps `frame`; false once the recording holds its most frames or bytes (the frame is not
    /// kept). `RecordingFull` when the data folder's disk has no room for it, or failed to take it.
    func append(_ frame: CapturedFrame) throws -> Bool {
        try lock.withLock {
            guard !closed, !fullBudget, count < Self.maxFrames else { return false }
            // What the bundle stores: each plane as it came.
            let size = frame.depth.data.count + (frame.color?.planes.reduce(0) { $0 + $1.count } ?? 0)
            guard kept + size <= maxBytes else {
                fullBudget = true
                return false
            }
            if let free = DiskSpace.available(at: folder.path), free < size + Self.diskReserve {
                closed = true
                throw RecordingFull.disk
            }
            do {
                try writer.append(frame: frame)
            } catch let error as CloudError where error.kind == .deviceOrIO {
                closed = true
                throw DiskSpace.isLow(at: folder.path) ? RecordingFull.disk : RecordingFull.failed
            }
            count += 1
            kept += size
            if frame.pose == nil { unposed += 1 }
            return true
        }
    }

    /// Writes the bundle's manifest; no frame is kept after it.
    func finish() throws {
        try lock.withLock {
            closed = true
            do {
                try writer.finish()
            } catch let error as CloudError where error.kind == .deviceOrIO {
                throw DiskSpace.isLow(at: folder.path) ? RecordingFull.noRoom : RecordingFull.failed
            }
        }
    }

    /// Removes what was kept.
    func discard() {
        lock.withLock { closed = true }
        store.abandon(staging: folder)
    }
}

/// A recording the server could not keep going: its disk is full (507 to HTTP, 1011 to the push
/// socket), or a write failed for another reason of the server's. The reasons name no server path.
struct RecordingFull: Error, Sendable {
    let status: HTTPResponse.Status
    let reason: String

    static let insufficientStorage = HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")
    /// Mid-recording: the frames kept so far can still be stored.
    static let disk = RecordingFull(
        status: insufficientStorage, reason: "the server's disk is full: the recording keeps no more frames; stop it to store what it has")
    /// At the start, or at the end, when not even the capture fits.
    static let noRoom = RecordingFull(
        status: insufficientStorage, reason: "the server's disk is full: there is no room to record or store a recording")
    static let failed = RecordingFull(
        status: .internalServerError, reason: "the server could not write the recording's frames; the recording keeps no more")

    var problem: Problem { Problem(status, reason) }
}

/// Free space on a folder's file system, as an unprivileged writer may use it.
enum DiskSpace {
    static func available(at path: String) -> Int? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int(clamping: UInt64(info.f_bavail) &* UInt64(info.f_frsize))
    }

    /// Whether a write failure at `path` is likely the disk being full (ENOSPC is not kept in the error).
    static func isLow(at path: String) -> Bool {
        available(at: path).map { $0 < StreamRecorder.diskReserve } ?? false
    }
}
