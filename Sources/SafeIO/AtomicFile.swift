import CloudCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing a file so that it appears under its name only when complete (Docs/reliability.md: writes are
/// atomic; Docs/reliability.md "Writing outputs"). The content goes to `.NAME.tmp-PID-RANDOM` in
/// the destination's folder (`Temporaries`), created empty with O_EXCL so that it is ours alone,
/// with a new file's usual permissions (writers that reopen it by name keep them); a missing or
/// read-only folder fails before any work is done. A complete file is renamed over the
/// destination; on any failure, or a signal, the temporary file is removed.
///
/// A destination that is not a regular file (/dev/null, a FIFO, /dev/stdout) is never replaced:
/// the body still writes a regular temporary (in $TMPDIR), which is then copied into the target
/// as it stands (`OutputTarget`). Inside `OutputSet.all` the rename waits for the whole set.
public enum AtomicFile {
    /// Runs `body` with the temporary path to write to, then renames it into place (or, inside
    /// `OutputSet.all`, leaves that to the set).
    public static func write(_ destination: String, _ body: (String) throws -> Void) throws {
        let target = try OutputTarget(destination)
        // A file in a staged folder is renamed into it at once: the folder lands as a whole, so
        // this rename replaces nothing and needs no protection from signals.
        let inStaging = StagedDirectory.contains(target.path)
        let set = inStaging ? nil : OutputSet.current
        // Before the temporary exists, so that a signal never finds one the handler does not
        // remove; inside a set, the set's subject names what a signal interrupted.
        let standalone = OutputSet.current == nil
        if standalone { WriteInProgress.begin(destination) }
        defer { if standalone { WriteInProgress.end() } }
        let (folder, name) = Temporaries.split(target.path)
        let temporary =
            target.kind == .file
            ? try Temporaries.createFile(for: name, in: folder, destination: destination)
            : try Temporaries.createFile(for: name, in: Temporaries.folderForInPlaceTargets, destination: destination)
        do {
            try body(temporary)
        } catch {
            unlink(temporary)
            throw error
        }
        if let set {
            set.add(.file(temporary: temporary, target: target))
        } else if inStaging {
            guard rename(temporary, target.path) == 0 else {
                let code = errno
                unlink(temporary)
                throw target.failure("cannot rename the finished temporary file into place", code)
            }
        } else {
            try OutputSet.commit([.file(temporary: temporary, target: target)])
        }
    }

    /// Fails as a write to `destination` would (missing or read-only folder, a folder in the
    /// way), writing nothing, so that no work is spent on an output that cannot land.
    public static func checkWritable(_ destination: String) throws {
        let target = try OutputTarget(destination)
        switch target.kind {
        case .file:
            let (folder, name) = Temporaries.split(target.path)
            WriteInProgress.begin(destination)
            defer { WriteInProgress.end() }
            unlink(try Temporaries.createFile(for: name, in: folder, destination: destination))
        case .inPlace:
            guard access(target.path, W_OK) == 0 else { throw target.failure("cannot be written", errno) }
        }
    }

    /// Whether `destination` is this process's standard output (`--ply /dev/stdout`), so that a
    /// command prints its report elsewhere.
    public static func isStandardOutput(_ destination: String) -> Bool {
        OutputTarget.isStandardOutput(destination)
    }

    /// Whether `destination` is written in place (a device, a FIFO, /dev/stdout) rather than
    /// replaced: such a path cannot take numbered siblings (a sequence's NAME_000 ...).
    public static func isWrittenInPlace(_ destination: String) -> Bool {
        (try? OutputTarget(destination))?.kind == .inPlace
    }

    /// The size in bytes of what was written for `destination`: its staged temporary while an
    /// `OutputSet` holds it, else the file itself; nil for none (or a device, which has no size).
    public static func writtenSize(_ destination: String) -> Int? {
        var status = stat()
        let path = OutputSet.current?.staged(destination) ?? destination
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(status.st_size)
    }

    /// Installs the handlers that remove half-written outputs when SIGINT, SIGTERM or SIGHUP
    /// ends the process, and makes SIGPIPE and SIGXFSZ (`ulimit -f`) errors of write() instead
    /// of silent deaths. The CLI calls it first thing.
    public static func installSignalCleanup() {
        Temporaries.installSignalCleanup()
    }

    /// Writes `data` atomically.
    public static func write(_ data: Data, to destination: String) throws {
        try write(bytes: [UInt8](data), to: destination)
    }

    /// Writes `bytes` atomically with plain stdio: Foundation's `Data.write` costs tens of
    /// milliseconds more per file on Linux, which a preview or a turntable frame notices.
    public static func write(bytes: [UInt8], to destination: String) throws {
        try write(destination) { temporary in
            guard let file = fopen(temporary, "wb") else {
                throw CloudError.io(.file(destination), "cannot be written: \(String(cString: strerror(errno)))")
            }
            let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            let writeError = errno
            let closed = fclose(file)
            guard written == bytes.count, closed == 0 else {
                throw CloudError.io(
                    .file(destination), "cannot be written: \(String(cString: strerror(written == bytes.count ? errno : writeError)))")
            }
        }
    }
}
