#if canImport(Glibc)
import Glibc
#endif

/// Large buffers a read fills once and throws away (a compressed block, its unpacked planes, a
/// cloud's arrays) cost more in page faults than in copying: 4 KiB at a time, each zeroed by the
/// kernel. Asking for transparent huge pages before the first touch lets the kernel fault in
/// 2 MiB at a time where it can (Linux's `madvise` mode, this machine's default); where it
/// cannot, nothing changes.
enum HugePages {
    static let size = 2 << 20

    /// Advises the whole 2 MiB pages inside `count` bytes at `start`. Smaller buffers are left alone.
    static func advise(_ start: UnsafeMutableRawPointer, count: Int) {
        guard count >= 2 * size else { return }
        let first = (Int(bitPattern: start) + size - 1) & ~(size - 1)
        let end = (Int(bitPattern: start) + count) & ~(size - 1)
        guard end > first, let aligned = UnsafeMutableRawPointer(bitPattern: first) else { return }
        _ = madvise(aligned, end - first, MADV_HUGEPAGE)
    }
}
