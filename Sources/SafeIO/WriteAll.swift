#if canImport(Glibc)
import Glibc
#endif

/// Writes all of `bytes` to `fd`, going on after short writes and EINTR; returns nil, or the
/// errno of the write that failed (ENOSPC, EFBIG, EIO, EPIPE...), for the caller to name its file.
public func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
    var start = 0
    while start < bytes.count {
        let n = write(fd, bytes.baseAddress! + start, bytes.count - start)
        if n < 0 {
            if errno == EINTR { continue }
            return errno
        }
        start += n
    }
    return nil
}
