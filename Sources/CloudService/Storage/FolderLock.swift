import CloudCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A lock shared by every server process on the data folder (replicas, on other machines too):
/// flock(2) on a lock file beside what it guards. The kernel drops it when its holder closes the
/// file or its process ends, however it ends, so a replica that dies holding it blocks no one.
/// On NFS, Linux takes it as a lock on the server (NFSv4 byte-range locks), which other clients
/// see; in one process, two openings of the file exclude each other as two processes do.
///
/// The holder removes the lock file when done, so that none pile up. One that was waiting then
/// holds a removed file while a newcomer makes a new one, and both may run their bodies at once:
/// each body first checks whether its work is done already, so only work the first holder failed
/// to do can be done twice (correctly, as each write is a rename into place).
enum FolderLock {
    /// Runs `body` holding the lock file at `path` (made if missing) alone, then removes the file.
    /// Waits for another holder in steps of 20 ms, and gives up with `CancellationError` once
    /// `cancelled` is raised.
    static func withLock<T>(_ path: String, cancelled: CancellationFlag, _ body: () throws -> T) throws -> T {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CloudError.io("\(path): cannot open the lock file: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw CloudError.io("\(path): cannot lock it: \(String(cString: strerror(errno)))")
            }
            if cancelled.isRaised { throw CancellationError() }
            usleep(20_000)
        }
        defer { unlink(path) }
        return try body()
    }
}
