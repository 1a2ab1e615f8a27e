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

    /// Runs `work` on a pool thread and returns its result; 503 when the queue is full.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            let accepted = queue.add(limit: queueLimit) { continuation.resume(with: Result { try work() }) }
            if !accepted {
                continuation.resume(throwing: Problem(.serviceUnavailable, "the server is busy (\(name): \(queueLimit) requests waiting); retry shortly",
                                                      headers: [.retryAfter: "1"]))
            }
        }
    }
}

/// The pool's queue, shared with its threads.
private final class WorkQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [() -> Void] = []
    private var running = 0
    private var closed = false

    var load: (queued: Int, running: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (items.count, running)
    }

    func add(limit: Int, _ work: @escaping () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard items.count < limit else { return false }
        items.append(work)
        condition.signal()
        return true
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
            work()
            condition.lock()
            running -= 1
            condition.unlock()
        }
    }
}
