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

/// A phone uploads its own portrait photo as a `photo` part (no intrinsics part: the photo has
/// its calibration), with `known_distance` and `matte` as fields, and its warnings name those
/// fields, not the CLI's flags.
final class PhotoUploadTests: XCTestCase {
    private let photo = "phone/iphonex-portrait-depth.jpg"

    func testAPhotoPartIsCapturedAsTheCLIsPhotoSourceAndScaledByKnownDistance() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        let path = try sharedData(photo)
        var relative = MultipartBody()
        try relative.file("photo", path: path)
        var metric = relative
        metric.field("known_distance", "1512,2016=0.6")
        let bodies = (relative, metric)
        try await harness.test { client in
            let plain = try await client.execute(uri: "/v1/captures", method: .post, headers: bodies.0.headers, body: bodies.0.body)
            XCTAssertEqual(plain.status, .created, String(buffer: plain.body))
            let document = try plain.json()
            XCTAssertEqual((document["camera"] as? [String: Any])?["metric"] as? Bool, false)
            XCTAssertEqual(document["files"] as? [String: String], ["photo": "iphonex-portrait-depth.jpg"])
            let warnings = try XCTUnwrap(document["warnings"] as? [String])
            XCTAssertTrue(warnings.contains { $0.contains("known_distance=X,Y=METRES scales it") }, "\(warnings)")
            XCTAssertFalse(warnings.contains { $0.contains("--") }, "a warning names a CLI flag: \(warnings)")

            let scaled = try await client.execute(uri: "/v1/captures", method: .post, headers: bodies.1.headers, body: bodies.1.body)
            XCTAssertEqual(scaled.status, .created, String(buffer: scaled.body))
            let scaledDocument = try scaled.json()
            XCTAssertEqual((scaledDocument["camera"] as? [String: Any])?["metric"] as? Bool, true)
            let id = try XCTUnwrap(scaledDocument["id"] as? String)
            let ply = try await client.execute(uri: "/v1/captures/\(id)/cloud.ply", method: .get)
            let served = try Data(buffer: ply.body).withUnsafeBytes { try CloudReader.read(bytes: $0, path: "cloud.ply") }

            // The same photo and distance through the CLI's own pipeline.
            let folder = try makeScratchFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let reference = folder.appendingPathComponent("reference.ply").path
            _ = try CapturePipeline(
                source: try SourceSpec(parsing: "photo:\(path)"),
                sourceOptions: SourceOptions(knownDistance: KnownDistance(x: 1512, y: 2016, metres: 0.6)),
                frameLimit: 1, outputs: [(reference, .ply(.binary))], filters: FilterPipeline(steps: [], organized: false),
                pictures: nil, observer: SilentObserver()
            ).run()
            let expected = try CloudReader.read(reference)
            XCTAssertEqual(served.cloud.positions, expected.cloud.positions)
            XCTAssertEqual(served.cloud.colors, expected.cloud.colors)
            XCTAssertFalse(served.header.relativeUnits)
        }
    }

    func testPhotoFieldsAreCheckedAndNamed() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        let path = try sharedData(photo)
        var withIntrinsics = MultipartBody()
        try withIntrinsics.file("photo", path: path)
        try withIntrinsics.file("intrinsics", path: sharedData("open3d-rgbd/camera_primesense.json"))
        var malformed = MultipartBody()
        try malformed.file("photo", path: path)
        malformed.field("known_distance", "1512,2016")
        let bodies = (withIntrinsics, malformed)
        try await harness.test { client in
            let extra = try await client.execute(uri: "/v1/captures", method: .post, headers: bodies.0.headers, body: bodies.0.body)
            XCTAssertEqual(extra.status, .badRequest)
            XCTAssertEqual(try extra.json()["field"] as? String, "intrinsics")
            let bad = try await client.execute(uri: "/v1/captures", method: .post, headers: bodies.1.headers, body: bodies.1.body)
            XCTAssertEqual(bad.status, .unprocessableContent)
            let problem = try bad.json()
            XCTAssertEqual(problem["field"] as? String, "known_distance")
            XCTAssertTrue((problem["detail"] as? String ?? "").hasPrefix("known_distance"), "\(problem)")
            // The JSON route takes known_distance too, and refuses it for a source it does not apply to.
            let json = try await client.execute(
                uri: "/v1/captures", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"source": "synthetic", "known_distance": "10,10=1"}"#))
            XCTAssertEqual(json.status, .unprocessableContent, String(buffer: json.body))
            let detail = try json.json()["detail"] as? String ?? ""
            XCTAssertTrue(detail.contains("known_distance") && !detail.contains("--"), detail)
        }
    }
}
