import CloudCore
import CloudService
import Foundation
import SharedTestData
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// `kill -9` at random moments of a process that commits captures without pause: afterwards, every
/// capture it announced is there, byte for byte, and nothing half-written is listed.
final class CaptureStoreCrashTests: XCTestCase {
    /// Set in the child: the data folder to commit into until killed.
    private static let childVariable = "CLOUDGEN_TEST_COMMIT_FOREVER_INTO"

    /// Commits captures the way the killed child does, and checks them after reopening the store.
    /// In the child (the variable set), commits until killed, printing each id once it is committed.
    func testCommitLoop() async throws {
        if let folder = ProcessInfo.processInfo.environment[Self.childVariable] {
            let store = try CaptureStore(root: URL(fileURLWithPath: folder))
            while true {
                let record = try await StoreFixture.commitCapture(store)
                // One write(2) per line: a kill never splits one.
                FileHandle.standardOutput.write(Data("committed \(record.id)\n".utf8))
            }
        }
        let root = try scratchFolder()
        var ids: [CaptureID] = []
        let index = try SQLiteCaptureIndex(path: root.appendingPathComponent("index.sqlite").path)
        for _ in 0..<20 { ids.append(try await StoreFixture.commitCapture(try CaptureStore(root: root, index: index)).id) }
        try index.close()
        let store = try CaptureStore(root: root)
        let report = try await store.reconcile()
        XCTAssertEqual(report, ReconcileReport())
        let allIDs = try await store.index.allIDs()
        XCTAssertEqual(allIDs, ids.sorted())
        for id in ids {
            let problems = try await StoreFixture.problems(id, in: store)
            XCTAssertEqual(problems, [])
        }
    }

    /// Replays a run's kill moments: the seed it printed.
    private static let seedVariable = "CLOUDGEN_TEST_KILL_SEED"

    func testKillDuringCommitsLosesNoCaptureAndListsNoHalfOne() async throws {
        let root = try scratchFolder()
        var announced: Set<CaptureID> = []
        var leftovers = 0
        // The kill moments are random, so that runs reach different points of a commit, but seeded
        // and printed, so that a failing run can be replayed (CLOUDGEN_TEST_KILL_SEED=N).
        let seed =
            try ProcessInfo.processInfo.environment[Self.seedVariable].map { text in
                try XCTUnwrap(UInt64(text), "\(Self.seedVariable)=\(text) is not a whole number")
            } ?? UInt64.random(in: 0...UInt64(UInt32.max))
        print("CaptureStoreCrashTests: kill moments from seed \(seed) (\(Self.seedVariable)=\(seed) replays them)")
        var random = SplitMix64(seed: seed)
        for round in 0..<10 {
            let delay = Int.random(in: 0..<250, using: &random)
            print("CaptureStoreCrashTests: round \(round): kill \(delay) ms after the first commit")
            let (ids, exit) = try runChildUntilKilled(root, afterMilliseconds: delay)
            XCTAssertEqual(exit, SIGKILL, "round \(round) (seed \(seed)): the child ended otherwise")
            XCTAssertFalse(ids.isEmpty, "round \(round): the child committed nothing")
            announced.formUnion(ids)

            let index = try SQLiteCaptureIndex(path: root.appendingPathComponent("index.sqlite").path)
            let store = try CaptureStore(root: root, index: index)
            let report = try await store.reconcile()
            XCTAssertEqual(report.rowsRepaired, 0, "round \(round): a row was committed before its files: \(report)")
            leftovers += report.stagingRemoved + report.orphansRemoved
            let listed = try await index.allIDs()
            XCTAssertTrue(announced.isSubset(of: listed), "round \(round): lost \(announced.subtracting(listed))")
            XCTAssertEqual(try StoreFixture.entries(store.captures), listed.map(\.rawValue))
            XCTAssertEqual(try StoreFixture.entries(store.staging), [])
            for id in listed {
                let problems = try await StoreFixture.problems(id, in: store)
                XCTAssertEqual(problems, [], "round \(round)")
            }
            try index.close()
        }
        // The kills do land inside commits (files half-written, or renamed without their row),
        // so the checks above saw what a crash leaves.
        XCTAssertGreaterThan(leftovers, 0)
        print("10 kills: \(announced.count) captures announced before them, \(leftovers) half-done commits removed after them")
    }

    /// Starts this test binary as a child committing into `root`, lets it commit at least one
    /// capture, kills it `afterMilliseconds` later; the ids it announced, and the signal it died of.
    private func runChildUntilKilled(_ root: URL, afterMilliseconds: Int) throws -> (Set<CaptureID>, Int32?) {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        child.arguments = ["CloudServiceTests.CaptureStoreCrashTests/testCommitLoop"]
        child.environment = ProcessInfo.processInfo.environment.merging([Self.childVariable: root.path]) { $1 }
        let output = Pipe()
        child.standardOutput = output
        child.standardError = FileHandle.nullDevice
        try child.run()
        // Should the child never announce a capture, it is still killed, and the test fails; the
        // bound is against a hang, generous for a busy machine.
        let pid = child.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) { if child.isRunning { kill(pid, SIGKILL) } }
        var text = ""
        while !text.contains("committed ") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        usleep(useconds_t(afterMilliseconds * 1000))
        kill(pid, SIGKILL)
        text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        let ids = text.split(separator: "\n").compactMap { line -> CaptureID? in
            guard let range = line.range(of: "committed ") else { return nil }
            return CaptureID(validating: String(line[range.upperBound...]))
        }
        return (Set(ids), child.terminationReason == .uncaughtSignal ? child.terminationStatus : nil)
    }
}
