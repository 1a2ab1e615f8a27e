#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CloudCore
import Foundation

/// Writing a file so that it appears under its name only when complete (DESIGN.md: writes are
/// atomic). The content goes to `.NAME.tmp-PID-RANDOM` in the destination's folder, created empty
/// with O_EXCL so that it is ours alone, gets a new file's usual permissions (writers that reopen
/// it by name keep them), and a missing or read-only folder fails before any work is done. A
/// complete file is renamed over the destination; on any failure the temporary file is removed.
public enum AtomicFile {
    /// Runs `body` with the temporary path to write to, then renames it into place.
    public static func write(_ destination: String, _ body: (String) throws -> Void) throws {
        let temporary = try createTemporary(beside: destination)
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        try body(temporary)
        guard rename(temporary, destination) == 0 else {
            throw CloudError.io("\(destination): cannot rename the finished temporary file into place: \(String(cString: strerror(errno)))")
        }
        renamed = true
    }

    /// Fails as a write to `destination` would (missing or read-only folder, a folder in the
    /// way), writing nothing, so that no work is spent on an output that cannot land.
    public static func checkWritable(_ destination: String) throws {
        var status = stat()
        if stat(destination, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR {
            throw CloudError.badInput("\(destination): is a folder; name a file to write")
        }
        unlink(try createTemporary(beside: destination))
    }

    /// Writes `data` atomically.
    public static func write(_ data: Data, to destination: String) throws {
        try write(destination) { temporary in
            do {
                try data.write(to: URL(fileURLWithPath: temporary))
            } catch {
                throw CloudError.io("\(destination): cannot be written: \(error.localizedDescription)")
            }
        }
    }

    /// Writes `bytes` atomically with plain stdio: Foundation's `Data.write` costs tens of
    /// milliseconds more per file on Linux, which a preview or a turntable frame notices.
    public static func write(bytes: [UInt8], to destination: String) throws {
        try write(destination) { temporary in
            guard let file = fopen(temporary, "wb") else {
                throw CloudError.io("\(destination): cannot be written: \(String(cString: strerror(errno)))")
            }
            let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            let closed = fclose(file)
            guard written == bytes.count, closed == 0 else {
                throw CloudError.io("\(destination): cannot be written: \(String(cString: strerror(errno)))")
            }
        }
    }

    private static func createTemporary(beside destination: String) throws -> String {
        let slash = destination.lastIndex(of: "/")
        let folder = slash.map { String(destination[...$0]) } ?? ""
        let name = slash.map { String(destination[destination.index(after: $0)...]) } ?? destination
        guard !name.isEmpty else { throw CloudError.badInput("\(destination): not a file path (it ends with '/')") }
        let path = "\(folder).\(name).tmp-\(getpid())-\(String(UInt32.random(in: .min ... .max), radix: 16))"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else {
            let code = errno
            let place = folder.isEmpty ? "the current folder" : "folder \(folder)"
            if code == ENOENT || code == ENOTDIR {
                throw CloudError.io("\(destination): cannot write: \(place) does not exist")
            }
            throw CloudError.io("\(destination): cannot write into \(place): \(String(cString: strerror(code)))")
        }
        close(fd)
        return path
    }
}
