import CloudCore
import Foundation
import XCTest

@testable import SafeIO

/// Claims reserve a work's peak in the process's ledger before its buffers exist, so that work
/// running at once cannot all pass the budget check together.
/// (No stored state: concurrent claims call its helper.)
final class MemoryClaimTests: XCTestCase, @unchecked Sendable {
    override func tearDown() {
        MemoryLedger.setCapacity(nil)
    }

    private func require(_ bytes: Int, under claim: MemoryClaim, held: Int = 0) throws {
        try claim.run { try MemoryBudget(available: nil, addressSpaceLimit: nil).require(bytes, for: "a test", about: nil, held: held) }
    }

    func testClaimsShareTheCapacityAndGiveItBack() throws {
        // Relative to what other work in this process may hold.
        let start = MemoryLedger.reservedBytes
        MemoryLedger.setCapacity(start + (1000 << 20))
        let first = MemoryClaim(share: nil)
        let second = MemoryClaim(share: nil)
        try require(600 << 20, under: first)
        // The peak, not a sum: a later, smaller stage of the same work claims nothing more.
        try require(100 << 20, under: first, held: 400 << 20)
        XCTAssertEqual(first.bytes, 600 << 20)
        XCTAssertThrowsError(try require(600 << 20, under: second)) { error in
            XCTAssertTrue(error is MemoryBusy, "\(error)")
            XCTAssertTrue("\(error)".contains("retry shortly"), "\(error)")
        }
        XCTAssertEqual(second.bytes, 0, "a refused claim holds nothing")
        first.release()
        XCTAssertNoThrow(try require(600 << 20, under: second))
        XCTAssertEqual(MemoryLedger.reservedBytes, start + (600 << 20))
        // More than the whole capacity can never be had: the budget's refusal, not busy.
        let huge = MemoryClaim(share: nil)
        XCTAssertThrowsError(try require(start + (2000 << 20), under: huge)) { error in
            XCTAssertEqual((error as? CloudError)?.kind, .budget, "\(error)")
        }
    }

    func testAClaimGoesBackWhenItsWorkIsGone() throws {
        let start = MemoryLedger.reservedBytes
        MemoryLedger.setCapacity(start + (1 << 30))
        do {
            let claim = MemoryClaim(share: nil)
            try require(300 << 20, under: claim)
            XCTAssertEqual(MemoryLedger.reservedBytes, start + (300 << 20))
        }
        XCTAssertEqual(MemoryLedger.reservedBytes, start)
    }

    func testWorkUnderAClaimIsHeldToItsShare() throws {
        let claim = MemoryClaim(
            share: MemoryShare(bytes: 256 << 20, holder: "a request on this server", setting: "--max-request-memory-mb"))
        XCTAssertThrowsError(try require(300 << 20, under: claim)) { error in
            XCTAssertEqual((error as? CloudError)?.kind, .budget)
            XCTAssertTrue("\(error)".contains("--max-request-memory-mb"), "\(error)")
        }
        XCTAssertNoThrow(try require(200 << 20, under: claim))
        // Outside any claim, only the process's budget counts, as for the CLI.
        XCTAssertNoThrow(try MemoryBudget(available: nil, addressSpaceLimit: nil).require(300 << 20, for: "a test", about: nil))
    }

    /// Eight threads asking at once for what fits four: four pass, whatever the order.
    func testConcurrentClaimsCannotAllPassTogether() {
        let start = MemoryLedger.reservedBytes
        MemoryLedger.setCapacity(start + 4 * (100 << 20))
        let claims = (0..<8).map { _ in MemoryClaim(share: nil) }
        let passed = Counter()
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            if (try? require(100 << 20, under: claims[i])) != nil { passed.add() }
        }
        XCTAssertEqual(passed.value, 4)
        // The claims hold their reservations while they live (an optimised build ends a value's
        // life at its last use, not at the end of the scope).
        withExtendedLifetime(claims) {
            XCTAssertEqual(MemoryLedger.reservedBytes, start + 4 * (100 << 20))
        }
    }

    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }
}
