import Foundation
import Hummingbird
import HummingbirdTesting
import SharedTestData
import XCTest

/// A warning about an upload names its parts and the archive's files as the client knows them,
/// in its subject and in its reason alike: the server's paths for them never show (the harness
/// fails any answer that names the data folder).
final class UploadWarningTests: XCTestCase {
    func testAnArchiveCapturedWithAnUploadedCalibrationIsWarnedAboutInTheClientsNames() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: scratch) }
        var upload = MultipartBody()
        upload.file("bundle", try redwoodArchive(in: scratch), filename: "scan.tar")
        try upload.file("intrinsics", path: try sharedData("open3d-rgbd/camera_primesense.json"))
        upload.field("voxel", "0.05")
        let body = upload
        try await harness.test(.live) { client in
            let accepted = try await client.execute(uri: "/v1/captures", method: .post, headers: body.headers, body: body.body)
            XCTAssertEqual(accepted.status, .accepted, String(buffer: accepted.body))
            let id = try XCTUnwrap(try accepted.json()["id"] as? String)
            // The event stream ends with the job.
            _ = try await client.execute(uri: "/v1/jobs/\(id)/events", method: .get)
            let job = try await client.execute(uri: "/v1/jobs/\(id)", method: .get).json()
            XCTAssertEqual(job["state"] as? String, "succeeded", "\(job)")
            let capture = try await client.execute(uri: try XCTUnwrap(job["capture"] as? String), method: .get).json()
            let warnings = try XCTUnwrap(capture["warnings"] as? [String])
            XCTAssertEqual(warnings, ["redwood:bundle: using intrinsics=intrinsics instead of bundle/camera_primesense.json"])
            let filters = try XCTUnwrap(capture["filters"] as? [[String: Any]])
            XCTAssertEqual(filters.map { $0["argument"] as? String }, ["voxel=0.05"])
        }
    }
}
