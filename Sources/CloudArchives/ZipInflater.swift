import CZlib
import CloudCore

/// zlib's raw inflate over one zip member, owned and closed with it.
final class ZipInflater {
    private let stream: OpaquePointer

    enum Step {
        case more
        case end
    }

    init() throws {
        guard let stream = czlib_inflater_open() else { throw CloudError.io("cannot start zlib's inflate: out of memory") }
        self.stream = stream
    }

    deinit {
        czlib_inflater_close(stream)
    }

    /// Inflates from `input` into `output`; returns what was used and made, and whether the
    /// stream ended. Corrupt data throws `corrupt` with zlib's reason.
    func inflate(
        _ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
        corrupt: (String) -> CloudError
    ) throws -> (consumed: Int, produced: Int, step: Step) {
        var consumed = 0
        var produced = 0
        let status = czlib_inflate(
            stream, input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count, &consumed,
            output.baseAddress?.assumingMemoryBound(to: UInt8.self), output.count, &produced)
        switch Int(status) {
        case Int(CZ_MORE): return (consumed, produced, .more)
        case Int(CZ_END): return (consumed, produced, .end)
        case Int(CZ_NO_MEMORY): throw CloudError.io("zlib's inflate ran out of memory")
        default: throw corrupt("corrupt deflate data (\(String(cString: czlib_message(stream))))")
        }
    }
}

/// The CRC-32 zip and PNG use, continued over `bytes`.
func crc32(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
    guard let base = bytes.baseAddress else { return crc }
    return czlib_crc32(crc, base.assumingMemoryBound(to: UInt8.self), bytes.count)
}
