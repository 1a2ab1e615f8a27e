import CloudCore
import CloudFiles
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import SharedTestData
import XCTest

/// POST /v1/captures with uploaded images, then the capture's JSON and cloud: the stored cloud is
/// the same back-projection `capture --source rgbd:...` makes of the same files.
final class CaptureUploadTests: XCTestCase {
    func testAnUploadedTUMFrameIsStoredAndItsCloudEqualsTheCLIsCapture() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        let upload = try MultipartBody.tumFrame()
        try await harness.test { client in
            let created = try await client.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body)
            XCTAssertEqual(created.status, .created, String(buffer: created.body))
            let document = try created.json()
            let id = try XCTUnwrap(document["id"] as? String)
            XCTAssertEqual(created.headers[.location], "/v1/captures/\(id)")
            XCTAssertEqual(document["source"] as? String, "rgbd:color,depth")
            let counts = try XCTUnwrap(document["counts"] as? [String: Any])
            let points = try XCTUnwrap(counts["points"] as? Int)
            XCTAssertEqual(document["points"] as? Int, points)

            let ply = try await client.execute(uri: "/v1/captures/\(id)/cloud.ply", method: .get)
            XCTAssertEqual(ply.status, .ok)
            let cloud = try Data(buffer: ply.body).withUnsafeBytes { try CloudReader.read(bytes: $0, path: "cloud.ply") }.cloud
            XCTAssertEqual(cloud.count, points)

            // The same files through the CLI's own pipeline give the same points.
            let reference = try CLICapture.tumFrame()
            XCTAssertEqual(reference.positions.count, cloud.positions.count)
            XCTAssertEqual(reference.positions, cloud.positions)
            XCTAssertEqual(reference.colors, cloud.colors)
        }
    }
}
