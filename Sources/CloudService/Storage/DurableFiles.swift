import CloudCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The fsync and rename steps that make a capture's folder survive a power cut, not only a
/// killed process: file contents, then the folder's entries, then the rename into place.
enum DurableFiles {
    /// Flushes every file and folder under `folder` (depth first), then `folder` itself.
    static func syncTree(_ folder: URL) throws {
        let fm = FileManager.default
        guard let enumerator = fm.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey, .isDirectoryKey]) else {
            throw CloudError.io("\(folder.path): cannot list it")
        }
        for case let item as URL in enumerator {
            let values = try item.resourceValues(forKeys: [.isRegularFileKey, .isDirectoryKey])
            if values.isRegularFile == true || values.isDirectory == true {
                try sync(item)
            }
        }
        try sync(folder)
    }

    /// fsync(2) of one file or folder.
    static func sync(_ url: URL) throws {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure(url, "cannot open it to flush it") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw failure(url, "cannot flush it to disk") }
    }

    /// rename(2): atomic within one file system. `destination` must not exist (an empty folder
    /// there would be replaced, a full one refused).
    static func move(_ source: URL, to destination: URL) throws {
        guard rename(source.path, destination.path) == 0 else {
            throw failure(source, "cannot rename it to \(destination.path)")
        }
    }

    /// Runs `body`, which blocks in the file system (fsync can take milliseconds), on a thread of
    /// its own rather than one of the few that run every task: requests in flight flush at once,
    /// and the others go on meanwhile.
    static func offload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }

    private static func failure(_ url: URL, _ what: String) -> CloudError {
        CloudError.io("\(url.path): \(what): \(String(cString: strerror(errno)))")
    }
}
