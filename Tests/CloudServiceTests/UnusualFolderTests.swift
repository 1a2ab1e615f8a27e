import CloudCore
import CloudFiles
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import SharedTestData
import XCTest

/// A data folder whose path holds a comma, a space and letters beyond ASCII ("/srv/scans,2026"):
/// the routes hand their own files to the pipeline as paths, never through a spec's text, so
/// uploads and archives are captured as anywhere else, and no answer names the folder (the
/// harness's client fails any that does).
final class UnusualFolderTests: XCTestCase {
    static let suffix = ",2026 scans ünï"

    func testAFrameUploadIntoACommaFolderIsCapturedAsTheCLIsCapture() async throws {
        let harness = try ServiceHarness(nameSuffix: Self.suffix)
        defer { harness.remove() }
        XCTAssertTrue(harness.data.path.contains(","))
        let upload = try MultipartBody.tumFrame()
        try await harness.test { client in
            let created = try await client.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body)
            XCTAssertEqual(created.status, .created, String(buffer: created.body))
            let document = try created.json()
            XCTAssertEqual(document["source"] as? String, "rgbd:color,depth")
            let id = try XCTUnwrap(document["id"] as? String)
            let ply = try await client.execute(uri: "/v1/captures/\(id)/cloud.ply", method: .get)
            XCTAssertEqual(ply.status, .ok)
            let cloud = try Data(buffer: ply.body).withUnsafeBytes { try CloudReader.read(bytes: $0, path: "cloud.ply") }.cloud
            let reference = try CLICapture.tumFrame()
            XCTAssertEqual(reference.positions, cloud.positions)
            XCTAssertEqual(reference.colors, cloud.colors)
        }
    }

    /// A depth part that is no image is the part's fault, named as the part, in any folder.
    func testABadUploadInACommaFolderNamesThePartNotTheFolder() async throws {
        let harness = try ServiceHarness(nameSuffix: Self.suffix)
        defer { harness.remove() }
        var parts = MultipartBody()
        parts.file("depth", Data("not a PNG at all".utf8), filename: "depth.png")
        try parts.file("intrinsics", path: sharedData("open3d-rgbd/camera_primesense.json"))
        let upload = parts
        try await harness.test { client in
            let refused = try await client.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body)
            XCTAssertEqual(refused.status, .unprocessableContent, String(buffer: refused.body))
            let problem = try refused.json()
            XCTAssertEqual(problem["part"] as? String, "depth", "\(problem)")
        }
    }

    func testAnArchiveUnpackedInACommaFolderIsFused() async throws {
        let harness = try ServiceHarness(nameSuffix: Self.suffix)
        defer { harness.remove() }
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let archive = try MultipartBody.redwoodBundle(in: scratch)
        try await harness.test(.live) { client in
            let accepted = try await client.execute(uri: "/v1/captures", method: .post, headers: archive.headers, body: archive.body)
            XCTAssertEqual(accepted.status, .accepted, String(buffer: accepted.body))
            let id = try XCTUnwrap(try accepted.json()["id"] as? String)
            let job = try await client.endedJob(id)
            XCTAssertEqual(job["state"] as? String, "succeeded", "\(job)")
            let capturePath = try XCTUnwrap(job["capture"] as? String, "\(job)")
            let capture = try await client.execute(uri: capturePath, method: .get).json()
            XCTAssertEqual(capture["frames"] as? Int, 5)
            XCTAssertEqual(capture["source"] as? String, "redwood:bundle")
        }
    }
}
