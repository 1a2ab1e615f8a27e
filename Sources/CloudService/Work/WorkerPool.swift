import Foundation
import Hummingbird

/// Threads for the heavy, blocking work (decoding, back-projection, PCL filters, rendering), off
/// Swift's cooperative pool and NIO's event loops, so that a burst of uploads never stalls the
/// server's other answers. At most `threads` items run and `queueLimit` wait; past that, `run`
/// refuses at once with 503 and Retry-After rather than letting requests pile up. The threads end
/// once the pool is gone and its queue is empty.
public final class WorkerPool: Sendable {
    private let queue: WorkQueue
    let name: String
    let queueLimit: Int

    public init(name: String, threads: Int, queueLimit: Int) {
        self.name = name
        self.queueLimit = queueLimit
        queue = WorkQueue()
        for index in 0..<threads {
            // The thread holds the queue, not the pool, so that the pool can go.
            let thread = Thread { [queue] in queue.serve() }
            thread.name = "cloudgen-\(name)-\(index)"
            // Large clouds recurse nowhere, but PCL's and the decoders' frames are big.
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    deinit {
        queue.close()
    }

    /// Work waiting, and work being done.
    var load: (queued: Int, running: Int) { queue.load }

    /// Items done since the pool started.
    var completed: Int { queue.completed }

    /// Runs `work` on a pool thread and returns its result; 503 when the queue is full.
    ///
    /// Cancelling the calling task (its client went away) takes work that has not started off
    /// the queue at once, and raises `cancelled` for work that has: the work looks at it between
    /// its steps (frames, filters) and stops. Either way the call throws `CancellationError`.
    func run<T: Sendable>(_ work: @escaping @Sendable (_ cancelled: CancellationFlag) throws -> T) async throws -> T {
        let item = QueuedWork()
        // `start` must not hold `item` itself: item -> start -> item is a cycle that kept every
        // item, and with it `work` and all it captured (a stream's pushed frame, an upload's
        // body), for the life of the process.
        let cancelled = item.cancelled
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
                item.start = { continuation.resume(with: Result { try work(cancelled) }) }
                item.abandon = { continuation.resume(throwing: CancellationError()) }
                if !queue.add(item, limit: queueLimit) {
                    continuation.resume(
                        throwing: Problem(
                            .serviceUnavailable, "the server is busy (\(name): \(queueLimit) requests waiting); retry shortly",
                            headers: [.retryAfter: "1"]))
                }
            }
        } onCancel: {
            item.cancelled.raise()
            if queue.withdraw(item) { item.abandon() }
        }
    }

    /// `run` for a caller on a thread of its own rather than in a task (a server-run stream's
    /// source): blocks until the work is done; 503 at once when the queue is full.
    func runWaiting<T>(_ work: @escaping () throws -> T) throws -> T {
        let item = QueuedWork()
        let done = DispatchSemaphore(value: 0)
        var result: Result<T, Error>?
        item.start = {
            result = Result { try work() }
            done.signal()
        }
        guard queue.add(item, limit: queueLimit) else {
            throw Problem(.serviceUnavailable, "the server is busy (\(name): \(queueLimit) requests waiting)", headers: [.retryAfter: "1"])
        }
        done.wait()
        return try result!.get()
    }

    /// `run` for work that has no steps to stop between.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await run { _ in try work() }
    }
}

/// Raised when the work's requester is gone; the work reads it between its steps.
final class CancellationFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false

    var isRaised: Bool {
        lock.lock()
        defer { lock.unlock() }
        return raised
    }

    func raise() {
        lock.lock()
        raised = true
        lock.unlock()
    }
}

/// One call's work in the queue: `start` runs it, `abandon` answers for it when it never will.
/// Both are set before the item is queued, and the queue's lock orders them against `withdraw`.
private final class QueuedWork: @unchecked Sendable {
    let cancelled = CancellationFlag()
    var start: () -> Void = {}
    var abandon: () -> Void = {}
}

/// The pool's queue, shared with its threads.
private final class WorkQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [QueuedWork] = []
    private var running = 0
    private var done = 0
    private var closed = false

    var load: (queued: Int, running: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (items.count, running)
    }

    /// Queues `work`; false when `limit` items wait already. Work whose caller is gone already
    /// is answered at once.
    func add(_ work: QueuedWork, limit: Int) -> Bool {
        condition.lock()
        guard items.count < limit else {
            condition.unlock()
            return false
        }
        if work.cancelled.isRaised {
            condition.unlock()
            work.abandon()
            return true
        }
        items.append(work)
        condition.signal()
        condition.unlock()
        return true
    }

    /// Takes `work` off the queue if no thread has started it: true if it was there.
    func withdraw(_ work: QueuedWork) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard let index = items.firstIndex(where: { $0 === work }) else { return false }
        items.remove(at: index)
        return true
    }

    var completed: Int {
        condition.lock()
        defer { condition.unlock() }
        return done
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    func serve() {
        while true {
            condition.lock()
            while items.isEmpty && !closed { condition.wait() }
            if items.isEmpty {
                condition.unlock()
                return
            }
            let work = items.removeFirst()
            running += 1
            condition.unlock()
            work.start()
            condition.lock()
            running -= 1
            done += 1
            condition.unlock()
        }
    }
}
