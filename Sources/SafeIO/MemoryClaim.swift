import CloudCore
import Foundation

/// The memory one piece of work (a server request, a stream's frame) holds at its peak, reserved
/// in the process's `MemoryLedger` before its buffers are allocated, so that work running at once
/// cannot all pass the budget check together and then all allocate: the budget a check reads
/// does not yet show what another thread is about to allocate, and eight 4096x4096 frames each
/// seeing room for one took a server under `ulimit -v` 4 GiB down.
///
/// While work runs inside `run`, every `MemoryBudget.require` it makes (the frame estimate each
/// source makes before reading pixels, each filter step's working set) is held to the claim's
/// share and raises the claim to that requirement (the work's peak so far, not a sum: the
/// stages follow each other). The claim gives its bytes back when it is released or goes.
public final class MemoryClaim: @unchecked Sendable {
    /// The claim the calling thread's work runs under (bound by `run`); nil outside any.
    @TaskLocal public static var current: MemoryClaim?

    /// The most this work may hold (a server request's share); nil: only the process's budget.
    public let share: MemoryShare?
    private let lock = NSLock()
    private var peak = 0

    public init(share: MemoryShare?) {
        self.share = share
    }

    deinit { release() }

    /// Bytes reserved for this work.
    public var bytes: Int { lock.withLock { peak } }

    /// Runs `body` with this claim as `current`, on this thread.
    public func run<T>(_ body: () throws -> T) rethrows -> T {
        try Self.$current.withValue(self, operation: body)
    }

    /// Gives the reserved bytes back (a stream's frame once no viewer holds it). Safe twice.
    public func release() {
        let bytes = lock.withLock {
            defer { peak = 0 }
            return peak
        }
        MemoryLedger.release(bytes)
    }

    /// Raises the reservation to `total` bytes, when it is less: refused when the ledger lacks room.
    func raise(to total: Int, for what: String, about subject: CloudError.Subject?) throws {
        try lock.withLock {
            guard total > peak else { return }
            try MemoryLedger.reserve(total - peak, total: total, for: what, about: subject)
            peak = total
        }
    }
}

/// What the claims of this process's work hold between them, against its capacity: the memory a
/// server had to spare when it started (`setCapacity`), less a margin for everything unclaimed.
public enum MemoryLedger {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var reserved = 0
    nonisolated(unsafe) private static var capacity: Int?

    /// The bytes all claims may hold at once; nil (the default, and the CLI's): no ledger limit.
    public static func setCapacity(_ bytes: Int?) {
        lock.withLock { capacity = bytes }
    }

    /// The capacity for a server starting now: what its budget leaves, less a quarter for what
    /// claims do not count (connections, the runtime, answers being sent), at most 1 GiB of it.
    public static func serverCapacity(_ budget: MemoryBudget = .current()) -> Int? {
        budget.available.map { $0 - min($0 / 4, 1 << 30) }
    }

    public static var reservedBytes: Int { lock.withLock { reserved } }

    static func reserve(_ extra: Int, total: Int, for what: String, about subject: CloudError.Subject?) throws {
        try lock.withLock {
            if let capacity, reserved + extra > capacity {
                // Work that could never fit is the budget's refusal; work that fits once others finish is busy.
                guard total <= capacity else {
                    throw CloudError(
                        .budget, subject: subject,
                        "needs about \(MemoryBudget.format(total)) of memory for \(what); this server's work may use at most \(MemoryBudget.format(capacity))"
                    )
                }
                throw MemoryBusy(what: what, bytes: total, held: reserved, capacity: capacity)
            }
            reserved += extra
        }
    }

    static func release(_ bytes: Int) {
        guard bytes > 0 else { return }
        lock.withLock { reserved -= bytes }
    }
}

/// Work refused for now: it fits the server, but the memory it needs is claimed by other work
/// in progress. A server answers 503 with Retry-After; a stream skips the frame.
public struct MemoryBusy: Error, CustomStringConvertible, Sendable {
    public var what: String
    public var bytes: Int
    public var held: Int
    public var capacity: Int

    public var description: String {
        "needs about \(MemoryBudget.format(bytes)) of memory for \(what), and the server's other work holds \(MemoryBudget.format(held)) of its \(MemoryBudget.format(capacity)) now; retry shortly"
    }
}
