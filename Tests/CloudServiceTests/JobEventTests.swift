import Foundation
import SharedTestData
import XCTest

@testable import CloudService

/// A job's event stream against the job's own progress: whenever a subscriber arrives, its stream
/// carries the states in order, each once, and ends with the terminal one. (A stream that read
/// the state before registering missed a job that failed in between and never ended: the bad
/// archive test hung CI that way.)
final class JobEventTests: XCTestCase {
    private func board() throws -> (ServiceState, JobBoard) {
        let root = try scratchFolder()
        let configuration = ServiceConfiguration(port: 0, dataDirectory: root.path, maxUploadBytes: 1 << 20, workers: 1)
        let service = ServiceState(configuration: configuration, store: try CaptureStore(root: root))
        return (service, service.jobs)
    }

    /// The stream's states, or a failure once `seconds` pass: consuming an AsyncStream ends when
    /// its task is cancelled, so a stream that never ends fails the test rather than hanging it.
    /// The bound is against that hang, not a speed asked of the code: a minute, for a busy machine.
    private func states(of stream: JobEvents, within seconds: Double) async throws -> [JobRecord] {
        try await withThrowingTaskGroup(of: [JobRecord]?.self) { group in
            group.addTask { await stream.reduce(into: []) { $0.append($1) } }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = try await group.next()!
            group.cancelAll()
            return try XCTUnwrap(first, "the event stream did not end within \(seconds) s")
        }
    }

    func testSubscribersArrivingWhileAJobFinishesHearTheEnd() async throws {
        let (service, jobs) = try board()
        for round in 0..<300 {
            let job = JobRecord(id: JobID(), state: .running, created: Date(), updated: Date())
            try await service.store.index.insertJob(job)
            let failed = JobRecord(id: job.id, state: .failed, created: job.created, updated: Date(), problem: #"{"status": 422}"#)
            // The terminal state saved at the moment the subscription is made.
            async let finishing: Void = jobs.record(failed)
            let subscribed = try await jobs.events(job.id)
            let stream = try XCTUnwrap(subscribed)
            try await finishing
            let heard = try await states(of: stream, within: 60)
            XCTAssertEqual(heard.last?.state, .failed, "round \(round): \(heard.map(\.state))")
            // Registered before the failure was saved, it hears running first; after, the failure alone.
            XCTAssertTrue([[.failed], [.running, .failed]].contains(heard.map(\.state)), "round \(round): \(heard.map(\.state))")
        }
    }

    func testProgressArrivesInOrderEachOnceAndAfterTheEndNothingWaits() async throws {
        let (service, jobs) = try board()
        let job = JobRecord(id: JobID(), state: .running, created: Date(), updated: Date(), framesTotal: 40)
        try await service.store.index.insertJob(job)
        let subscribedEarly = try await jobs.events(job.id)
        let early = try XCTUnwrap(subscribedEarly)
        async let progress: Void = {
            var advanced = job
            for done in 1...40 {
                advanced.framesDone = done
                if done == 40 { advanced.state = .succeeded }
                try await jobs.record(advanced)
            }
        }()
        // A second subscriber in the middle of it.
        let subscribedMiddle = try await jobs.events(job.id)
        let middle = try XCTUnwrap(subscribedMiddle)
        try await progress
        for stream in [early, middle] {
            let heard = try await states(of: stream, within: 60)
            let done = heard.map(\.framesDone)
            XCTAssertEqual(done, done.sorted(), "frames done never goes back")
            XCTAssertEqual(Set(done).count, done.count, "each state once: \(done)")
            XCTAssertEqual(done.last, 40)
        }
        let late = try await jobs.events(job.id)
        let heardLate = try await states(of: XCTUnwrap(late), within: 60)
        XCTAssertEqual(heardLate.map(\.state), [.succeeded], "a late subscriber gets the terminal state and the end")
        let unknown = try await jobs.events(JobID())
        XCTAssertNil(unknown, "no job, no stream")
    }
}
