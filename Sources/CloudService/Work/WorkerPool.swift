import Foundation
import Hummingbird

/// Threads for the heavy, blocking work (decoding, back-projection, PCL filters, rendering), off
/// Swift's cooperative pool and NIO's event loops, so that a burst of uploads never stalls the
/// server's other answers. At most `threads` items run and `queueLimit` wait; past that, `run`
/// refuses at once with 503 and Retry-After rather than letting requests pile up.
public final class WorkerPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [() -> Void] = []
    private var running = 0
    let queueLimit: Int
    let name: String

    public init(name: String, threads: Int, queueLimit: Int) {
        self.name = name
        self.queueLimit = queueLimit
        for index in 0..<threads {
            let thread = Thread { [unowned self] in self.serve() }
            thread.name = "cloudgen-\(name)-\(index)"
            // Large clouds recurse nowhere, but PCL's and the decoders' frames are big.
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Work waiting, and work being done.
    var load: (queued: Int, running: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (queue.count, running)
    }

    /// Runs `work` on a pool thread and returns its result; 503 when the queue is full.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            condition.lock()
            guard queue.count < queueLimit else {
                condition.unlock()
                continuation.resume(throwing: Problem(.serviceUnavailable, "the server is busy (\(name): \(queueLimit) requests waiting); retry shortly",
                                                      headers: [.retryAfter: "1"]))
                return
            }
            queue.append { continuation.resume(with: Result { try work() }) }
            condition.signal()
            condition.unlock()
        }
    }

    private func serve() {
        while true {
            condition.lock()
            while queue.isEmpty { condition.wait() }
            let work = queue.removeFirst()
            running += 1
            condition.unlock()
            work()
            condition.lock()
            running -= 1
            condition.unlock()
        }
    }
}
