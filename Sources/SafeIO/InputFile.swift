import CloudCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file opened for reading: every reader of input files (images, calibration, trajectories,
/// dataset index files, bundle manifests and frames, cloud headers) opens it here, so that a
/// failure means the same exit status whichever reader met it.
///
/// - A missing file, a folder or anything else that is not a regular file, and a file larger than
///   the reader's limit are `CloudError.badInput` (exit 2): the user named the wrong thing.
/// - Permission denied, an I/O error and every other failure of the operating system are
///   `CloudError.io` (exit 3): the input may be fine, the system could not deliver it.
///
/// Messages are one line, "PATH: what is wrong", with the file's role in parentheses when the
/// reader gives one: "scan/manifest.json: no such file (the bundle's manifest)". The size is
/// known (and checked against the limit) before anything is read; `readAll` reads into one buffer
/// of exactly that size.
public final class InputFile {
    public let path: String
    /// The file's size in bytes when it was opened.
    public let size: Int
    private let fd: Int32
    private let role: String?

    /// Opens `path` for reading. `role` names what the file is to the reader, for messages
    /// ("the intrinsics file"); a file of more than `limit` bytes is refused before it is read.
    public init(_ path: String, role: String? = nil, limit: Int? = nil) throws {
        self.path = path
        self.role = role
        // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below as not a
        // regular file); for regular files the flag changes nothing.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw Self.error(errno: errno, path: path, role: role, doing: "cannot open") }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            _ = close(fd)
            throw Self.error(errno: code, path: path, role: role, doing: "cannot read")
        }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG else {
            _ = close(fd)
            throw CloudError.badInput(
                .file(path), "\(kind == S_IFDIR ? "is a folder, not a file" : "not a regular file")\(Self.suffix(role))")
        }
        let size = Int(info.st_size)
        if let limit, size > limit {
            _ = close(fd)
            throw CloudError.badInput(.file(path), "\(size) bytes is too large for \(role ?? "cloudgen to read") (at most \(limit))")
        }
        self.fd = fd
        self.size = size
    }

    deinit {
        _ = close(fd)
    }

    /// The whole file, in one buffer of exactly `size` bytes; a file that has shrunk since it was
    /// opened is bad input.
    public func readAll() throws -> [UInt8] {
        let bytes = try read(at: 0, count: size)
        guard bytes.count == size else {
            throw CloudError.badInput(.file(path), "the file shrank while being read (\(bytes.count) of \(size) bytes)")
        }
        return bytes
    }

    /// Up to `count` bytes from `offset` (fewer only at the end of the file).
    public func read(at offset: Int, count: Int) throws -> [UInt8] {
        try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = try read(at: offset, into: UnsafeMutableRawBufferPointer(buffer))
        }
    }

    /// Fills `buffer` from `offset`; returns the bytes read (fewer only at the end of the file).
    public func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var done = 0
        while done < buffer.count {
            let n = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                throw Self.error(errno: code, path: path, role: role, doing: "cannot read")
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Opens and reads the whole of `path` (see `init` and `readAll`).
    public static func readAll(_ path: String, role: String? = nil, limit: Int? = nil) throws -> [UInt8] {
        try InputFile(path, role: role, limit: limit).readAll()
    }

    /// The error for opening or reading `path` failing with `errno` `code`: a missing file or
    /// folder on the way (ENOENT, ENOTDIR), a name longer than the system allows (ENAMETOOLONG)
    /// and a folder (EISDIR) are bad input; anything else the
    /// system reports (EACCES, EIO, EMFILE, ...) is an I/O failure. `doing` starts the message's
    /// detail ("cannot open").
    public static func error(errno code: Int32, path: String, role: String? = nil, doing: String) -> CloudError {
        switch code {
        case ENOENT, ENOTDIR:
            return .badInput(.file(path), "no such file\(suffix(role))")
        case EISDIR:
            return .badInput(.file(path), "is a folder, not a file\(suffix(role))")
        case ENAMETOOLONG:
            return .badInput(.file(path), "the name is too long for the file system\(suffix(role))")
        default:
            return .io(.file(path), "\(doing): \(String(cString: strerror(code)))\(suffix(role))")
        }
    }

    private static func suffix(_ role: String?) -> String {
        role.map { " (\($0))" } ?? ""
    }
}
