import CloudCore
import SafeIO

#if canImport(Glibc)
import Glibc
#endif

/// An output file written through a buffer with plain write(2) calls, every result checked: a
/// full disk, a quota, EFBIG or EIO is a `CloudError.io` naming the destination, never a short
/// file that looks complete.
final class FileSink {
    static let bufferBytes = 1 << 20

    private var fd: Int32
    /// The name the file will have, for messages (the sink writes its temporary file).
    private let destination: String
    private let buffer: UnsafeMutableRawBufferPointer
    private var filled = 0

    init(path: String, destination: String) throws {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        self.destination = destination
        guard fd >= 0 else { throw CloudError.io(.file(destination), "cannot open for writing: \(String(cString: strerror(errno)))") }
        buffer = .allocate(byteCount: Self.bufferBytes, alignment: 16)
    }

    deinit {
        if fd >= 0 { close(fd) }
        buffer.deallocate()
    }

    /// Room for at least `count` bytes (at most `bufferBytes`) to fill and then `commit`.
    func reserve(_ count: Int) throws -> UnsafeMutableRawPointer {
        precondition(count <= Self.bufferBytes)
        if filled + count > buffer.count { try flush() }
        return buffer.baseAddress! + filled
    }

    func commit(_ count: Int) { filled += count }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        if bytes.count >= buffer.count {
            // Large blocks (a compressed piece) go out as they are, not through the buffer.
            try flush()
            try writeAll(bytes)
            return
        }
        var rest = bytes
        while !rest.isEmpty {
            if filled == buffer.count { try flush() }
            let n = min(rest.count, buffer.count - filled)
            (buffer.baseAddress! + filled).copyMemory(from: rest.baseAddress!, byteCount: n)
            filled += n
            rest = UnsafeRawBufferPointer(rebasing: rest[n...])
        }
    }

    func append(_ text: String) throws {
        var text = text
        try text.withUTF8 { try append(UnsafeRawBufferPointer($0)) }
    }

    /// Writes what is buffered and closes the file; close(2) can report what the writes could not
    /// (a full disk on NFS, a quota).
    func finish() throws {
        try flush()
        let descriptor = fd
        fd = -1
        guard close(descriptor) == 0 else { throw failure("cannot finish writing", errno) }
    }

    private func flush() throws {
        try writeAll(UnsafeRawBufferPointer(rebasing: buffer[..<filled]))
        filled = 0
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        if let code = SafeIO.writeAll(fd, bytes) { throw failure("cannot write", code) }
    }

    private func failure(_ doing: String, _ code: Int32) -> CloudError {
        CloudError.io(.file(destination), "\(doing): \(String(cString: strerror(code)))")
    }
}
