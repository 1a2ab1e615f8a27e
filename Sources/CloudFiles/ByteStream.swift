import CloudCore
import SafeIO

/// The bytes of a cloud file's data section read front to back through a window: from a file
/// in chunks of a few MiB (memory stays bounded whatever the file's size), or straight from a
/// buffer already in memory (an upload, a fuzzer's input) without a copy.
struct ByteStream {
    /// Bytes a file-backed stream reads per refill.
    static let chunkBytes = 4 << 20

    private let file: InputFile?
    private let memory: UnsafeRawBufferPointer?
    /// The file's (or buffer's) size.
    let size: Int
    /// Offset of the next byte to consume.
    private(set) var position: Int
    /// File-backed: bytes [bufferStart, bufferStart + bufferFill) of the file.
    private var buffer: UnsafeMutableRawBufferPointer?
    private var bufferStart = 0
    private var bufferFill = 0
    /// Names the file in errors.
    let path: String

    init(file: InputFile, from offset: Int) {
        self.file = file
        memory = nil
        size = file.size
        position = offset
        path = file.path
    }

    init(bytes: UnsafeRawBufferPointer, from offset: Int, path: String) {
        file = nil
        memory = bytes
        size = bytes.count
        position = offset
        self.path = path
    }

    /// Frees the chunk buffer; the stream is not used afterwards.
    mutating func close() {
        buffer?.deallocate()
        buffer = nil
    }

    var remaining: Int { size - position }
    var atEnd: Bool { position >= size }

    /// At least `minimum` and at most `maximum` contiguous bytes from the current position (fewer
    /// than `maximum` when the chunk ends first); throws "truncated" when the data ends before
    /// `minimum` bytes. Valid until the next call; `advance` consumes.
    mutating func window(atLeast minimum: Int, atMost maximum: Int, what: @autoclosure () -> String) throws -> UnsafeRawBufferPointer {
        guard minimum <= remaining else {
            throw CloudError.badInput(
                .file(path), "truncated: \(what()) needs \(minimum) bytes at byte \(position), the file has \(remaining) left")
        }
        let wanted = min(maximum, remaining)
        if let memory {
            return UnsafeRawBufferPointer(rebasing: memory[position..<(position + wanted)])
        }
        let bufferEnd = bufferStart + bufferFill
        if position < bufferStart || position + minimum > bufferEnd {
            try refill(atLeast: minimum)
        }
        let available = min(wanted, bufferStart + bufferFill - position)
        let offset = position - bufferStart
        return UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer!)[offset..<(offset + available)])
    }

    mutating func advance(_ count: Int) {
        position += count
    }

    /// Reads from `position` into the chunk buffer, growing it when one window needs more.
    private mutating func refill(atLeast minimum: Int) throws {
        guard let file else { return }
        let capacity = max(Self.chunkBytes, minimum)
        if buffer == nil || buffer!.count < capacity {
            buffer?.deallocate()
            buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
            HugePages.advise(buffer!.baseAddress!, count: capacity)
        }
        let target = buffer!
        let want = min(target.count, remaining)
        var filled = 0
        while filled < want {
            let n = try file.read(at: position + filled, into: UnsafeMutableRawBufferPointer(rebasing: target[filled..<want]))
            guard n > 0 else {
                throw CloudError.io(.file(path), "the file ended at byte \(position + filled) while being read (did it shrink?)")
            }
            filled += n
        }
        bufferStart = position
        bufferFill = filled
    }
}
