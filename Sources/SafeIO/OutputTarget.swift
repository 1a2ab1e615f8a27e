import CloudCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where an output path really leads, decided before anything is written: a regular file (or a
/// name not yet taken) is written beside itself and renamed into place; anything else that
/// accepts bytes (a character device such as /dev/null, a FIFO, a pipe or terminal behind
/// /dev/stdout) is written in place, opened for writing without O_CREAT or O_TRUNC, and never
/// replaced: renaming over /dev/null as root would destroy it.
struct OutputTarget {
    enum Kind {
        /// Written to a temporary beside `path`, renamed over it.
        case file
        /// Written to a temporary in the temporaries folder, then copied into `path` as it stands.
        case inPlace
    }

    /// The path as given, for messages.
    let given: String
    /// Where the bytes go: a symbolic link to a regular file is followed, so that the link
    /// survives and its target is replaced.
    let path: String
    let kind: Kind

    init(_ destination: String) throws {
        given = destination
        let last = destination.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard !last.isEmpty, last != ".", last != ".." else {
            throw CloudError.badInput(.file(destination), "not a file path; name a file to write")
        }
        var status = stat()
        guard stat(destination, &status) == 0 else {
            // Nothing there yet (or a dangling link, which the rename then replaces): a new file.
            path = destination
            kind = .file
            return
        }
        switch status.st_mode & S_IFMT {
        case S_IFDIR:
            throw CloudError.badInput(.file(destination), "is a folder; name a file to write")
        case S_IFREG:
            kind = Self.isDescriptorLink(destination) ? .inPlace : .file
            path = kind == .file ? Self.resolvingLinks(destination) : destination
        default:
            kind = .inPlace
            path = destination
        }
    }

    /// /dev/stdout, /dev/fd/N, /proc/self/fd/N lead to an open file of this process: whatever
    /// it is (a file the shell opened with `>>`), it is written through as it stands.
    private static func isDescriptorLink(_ path: String) -> Bool {
        if path.hasPrefix("/proc/") || path.hasPrefix("/dev/fd/") || ["/dev/stdout", "/dev/stderr"].contains(path) { return true }
        var link = stat()
        return lstat(path, &link) == 0 && (link.st_mode & S_IFMT) == S_IFLNK && resolvingLinks(path).hasPrefix("/proc/")
    }

    private static func resolvingLinks(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }

    /// Whether `path` is this process's standard output (the same open file), as with
    /// `--ply /dev/stdout`: the command's own report must then go elsewhere.
    static func isStandardOutput(_ path: String) -> Bool {
        var file = stat()
        var out = stat()
        guard stat(path, &file) == 0, fstat(STDOUT_FILENO, &out) == 0 else { return false }
        return file.st_dev == out.st_dev && file.st_ino == out.st_ino
    }

    /// Copies the finished `temporary` into the in-place target: through standard output when
    /// that is what the path names (keeping the shell's append mode and offset), else through a
    /// new descriptor opened without O_CREAT and O_TRUNC. A FIFO waits here for its reader.
    func copy(from temporary: String) throws {
        let source = open(temporary, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw failure("cannot read back its temporary file", errno) }
        defer { close(source) }
        let toStdout = Self.isStandardOutput(path)
        var sink = STDOUT_FILENO
        // A FIFO's open waits for a reader; a signal that is handled and returns (capture's
        // first Ctrl-C: stop taking frames, write the rest) must not end the wait.
        while !toStdout {
            sink = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY)
            if sink >= 0 || errno != EINTR { break }
        }
        guard sink >= 0 else { throw failure("cannot open for writing", errno) }
        defer { if !toStdout { close(sink) } }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure("cannot read back its temporary file", errno)
            }
            if n == 0 { break }
            if let code = buffer.withUnsafeBytes({ writeAll(sink, UnsafeRawBufferPointer(rebasing: $0[..<n])) }) {
                throw failure("cannot be written", code)
            }
        }
    }

    func failure(_ what: String, _ code: Int32) -> CloudError {
        CloudError.io("\(given): \(what): \(String(cString: strerror(code)))")
    }
}
