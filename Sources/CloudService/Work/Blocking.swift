import Foundation

/// Runs async work to completion from a worker-pool thread (never from Swift's cooperative pool,
/// whose threads it would block): the index is async, the capture's progress callbacks are not.
enum Blocking {
    static func wait(_ work: @escaping @Sendable () async throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        let outcome = Outcome()
        Task {
            do { try await work() } catch { outcome.error = error }
            done.signal()
        }
        done.wait()
        if let error = outcome.error { throw error }
    }

    private final class Outcome: @unchecked Sendable {
        var error: Error?
    }
}
