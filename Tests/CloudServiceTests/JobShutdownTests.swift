import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle
import SharedTestData
import XCTest

@testable import CloudService

/// A graceful stop waits for the archive jobs: it cancels them, and returns only once each has
/// saved how it ended, so no job is left `running` in the index of a server that stopped cleanly.
final class JobShutdownTests: XCTestCase {
    func testAStopWaitsUntilTheRunningJobHasSavedHowItEnded() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: scratch) }
        // Long enough to be running when the stop comes.
        let body = try MultipartBody.slowRedwoodBundle(in: scratch, rounds: 4)
        // The harness stops the service group (gracefully) once this closure returns, and
        // returns itself when the group has ended.
        let id = try await harness.test { client in try await client.startJob(body) }
        let index = try SQLiteCaptureIndex(path: harness.data.appendingPathComponent("index.sqlite").path)
        defer { try? index.close() }
        let job = try await index.job(try XCTUnwrap(JobID(validating: id)))
        let ended = try XCTUnwrap(job)
        // Running when the stop came (startJob saw it so), so the stop is what ended it: a job
        // that succeeded first would prove nothing about the stop.
        XCTAssertEqual(ended.state, .failed, "left \(ended.state) by a graceful stop")
        XCTAssertEqual(ended.problem, JobRecord.stoppedProblem)
        for folder in ["uploads", "jobs"] {
            let left = try FileManager.default.contentsOfDirectory(atPath: harness.data.appendingPathComponent(folder).path)
            XCTAssertEqual(left, [], "a stopped job removes its upload")
        }
    }

    func testTheRunnerCancelsItsJobsOnAStopAndWaitsForThemThenTakesNoMore() async throws {
        let running = RunningJobs()
        let events = NIOLockedValueBox<[String]>([])
        let (started, startedNow) = AsyncStream<Void>.makeStream()
        XCTAssertTrue(
            running.start {
                events.withLockedValue { $0.append("started") }
                startedNow.yield()
                // Ends only by cancellation: an hour is "never" for a test.
                let outcome: String = (try? await Task.sleep(for: .seconds(3600))) == nil ? "cancelled" : "slept"
                // What a job does after it is cancelled (saving its state) is waited for too.
                try? await Task.sleep(for: .milliseconds(200))
                events.withLockedValue { $0.append(outcome) }
            })
        var logger = Logger(label: "running-jobs-test")
        logger.logLevel = .critical
        let group = ServiceGroup(configuration: .init(services: [running], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await started.first { _ in true }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        XCTAssertEqual(events.withLockedValue { $0 }, ["started", "cancelled"], "the group returned before its job had ended")
        XCTAssertFalse(running.start {}, "a stopped runner takes no new jobs")
    }
}
