import CloudCapture
import CloudCore
import CloudFiles
import CloudPCL
import CloudPipeline
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import SharedTestData
import XCTest

/// An archive upload is a job: 202 at once, progress as server-sent events, then a stored capture
/// equal to what `capture --source redwood:DIR --fuse` makes of the same folder.
final class JobTests: XCTestCase {
    func testAnArchiveIsCapturedAsAJobWithProgressEventsAndMatchesTheCLI() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: scratch) }
        var upload = try MultipartBody.redwoodBundle(in: scratch)
        upload.field("voxel", "0.02")
        let body = upload
        try await harness.test(.live) { client in
            let accepted = try await client.execute(uri: "/v1/captures", method: .post, headers: body.headers, body: body.body)
            XCTAssertEqual(accepted.status, .accepted, String(buffer: accepted.body))
            let job = try accepted.json()
            let id = try XCTUnwrap(job["id"] as? String)
            XCTAssertEqual(accepted.headers[.location], "/v1/jobs/\(id)")

            // The event stream ends after the terminal state.
            let events = try await client.execute(uri: "/v1/jobs/\(id)/events", method: .get)
            XCTAssertEqual(events.headers[.contentType], "text/event-stream")
            let states = String(buffer: events.body).components(separatedBy: "\n\n").filter { !$0.isEmpty }.map { block -> [String: Any] in
                let data = block.split(separator: "\n").first { $0.hasPrefix("data: ") }.map { String($0.dropFirst(6)) } ?? "{}"
                return (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:]
            }
            XCTAssertGreaterThanOrEqual(states.count, 2, String(buffer: events.body))
            let last = try XCTUnwrap(states.last)
            XCTAssertEqual(last["state"] as? String, "succeeded", "\(last)")
            XCTAssertEqual(last["frames_done"] as? Int, 5)
            let done = states.compactMap { $0["frames_done"] as? Int }
            XCTAssertEqual(done, done.sorted(), "frames done never goes back")

            let polled = try await client.execute(uri: "/v1/jobs/\(id)", method: .get).json()
            XCTAssertEqual(polled["state"] as? String, "succeeded")
            let capturePath = try XCTUnwrap(polled["capture"] as? String)
            let capture = try await client.execute(uri: capturePath, method: .get).json()
            XCTAssertEqual(capture["frames"] as? Int, 5)
            XCTAssertEqual(capture["fused"] as? Bool, true)
            XCTAssertEqual(capture["source"] as? String, "redwood:bundle")
            let ply = try await client.execute(uri: capturePath + "/cloud.ply", method: .get)
            let cloud = try Data(buffer: ply.body).withUnsafeBytes { try CloudReader.read(bytes: $0, path: "cloud.ply") }.cloud

            // The CLI's pipeline on the folder itself.
            let reference = scratch.appendingPathComponent("reference.ply").path
            _ = try CapturePipeline(
                source: try SourceSpec(parsing: "redwood:\(try sharedData("open3d-rgbd"))"), sourceOptions: SourceOptions(), frame: .world,
                frameLimit: nil, fuse: true, outputs: [(reference, .ply(.binary))],
                filters: FilterPipeline(steps: [try FilterArguments.step(option: "voxel", value: "0.02")], organized: false),
                observer: SilentObserver()
            ).run()
            let expected = try CloudReader.read(reference).cloud
            XCTAssertEqual(cloud.count, expected.count)
            XCTAssertEqual(cloud.positions, expected.positions)
        }
    }

    func testABadArchiveFailsItsJobWithAProblemAndTheServerGoesOn() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        var upload = MultipartBody()
        upload.file("bundle", Data(repeating: 0x42, count: 4096), filename: "scan.zip")
        let body = upload
        try await harness.test(.live) { client in
            let accepted = try await client.execute(uri: "/v1/captures", method: .post, headers: body.headers, body: body.body)
            XCTAssertEqual(accepted.status, .accepted)
            let id = try XCTUnwrap(try accepted.json()["id"] as? String)
            _ = try await client.execute(uri: "/v1/jobs/\(id)/events", method: .get)
            let job = try await client.execute(uri: "/v1/jobs/\(id)", method: .get).json()
            XCTAssertEqual(job["state"] as? String, "failed")
            let problem = try XCTUnwrap(job["problem"] as? [String: Any])
            XCTAssertEqual(problem["status"] as? Int, 422)
            XCTAssertTrue((problem["detail"] as? String ?? "").hasPrefix("bundle:"), "\(problem)")
            XCTAssertNil(job["capture"] as? String)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: harness.data.appendingPathComponent("uploads").path), [])
            let health = try await client.execute(uri: "/healthz", method: .get)
            XCTAssertEqual(health.status, .ok)
        }
    }
}
