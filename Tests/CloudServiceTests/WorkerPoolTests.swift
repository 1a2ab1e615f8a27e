import Foundation
import XCTest

@testable import CloudService

final class WorkerPoolTests: XCTestCase {
    /// What a piece of work captures goes with it once it has run: a stream pushes thousands of
    /// frames through the pool, and each frame's bytes were once kept for good (a queued item
    /// whose `start` held the item itself), 21 KB a frame of 160x120 (Docs/benchmarks.md, "Live streams").
    func testWorkAndWhatItCapturesAreReleasedOnceItHasRun() async throws {
        final class Payload: Sendable {}
        let pool = WorkerPool(name: "test", threads: 1, queueLimit: 4)
        weak var released: Payload?
        do {
            let payload = Payload()
            released = payload
            let answer = try await pool.run { withExtendedLifetime(payload) { 42 } }
            XCTAssertEqual(answer, 42)
        }
        // The pool's thread lets go of the item just after resuming the caller.
        for _ in 0..<100 where released != nil { try await Task.sleep(for: .milliseconds(10)) }
        XCTAssertNil(released, "the pool kept the work's captures after it ran")
    }
}
