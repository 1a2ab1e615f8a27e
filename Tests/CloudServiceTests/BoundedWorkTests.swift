import CloudPCL
import Foundation
import Hummingbird
import HummingbirdTesting
import XCTest

@testable import CloudService

/// No request can ask for unbounded work: many steps are refused as the request is read, an
/// export's estimate is held to the request's CPU share before it is queued, and a fused capture
/// is held to its memory share as its frames accumulate, while the server goes on answering.
final class BoundedWorkTests: XCTestCase {
    func testTenThousandStepsAreRefusedBeforeAnyWork() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        var form = try MultipartBody.tumFrame()
        for _ in 0..<10_000 { form.field("normals", "0.1") }
        let upload = form
        try await harness.test { client in
            let refused = try await client.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body)
            XCTAssertEqual(refused.status, .unprocessableContent, String(buffer: refused.body))
            XCTAssertTrue(String(buffer: refused.body).contains("at most 16 filter steps"), String(buffer: refused.body))

            var seventeen = try MultipartBody.tumFrame()
            for _ in 0..<17 { seventeen.field("voxel", "0.01") }
            let overLimit = try await client.execute(uri: "/v1/captures", method: .post, headers: seventeen.headers, body: seventeen.body)
            XCTAssertEqual(overLimit.status, .unprocessableContent)
            XCTAssertEqual(try overLimit.json()["field"] as? String, "voxel")

            let json = "{\"source\":\"synthetic\",\"filters\":[\(Array(repeating: "\"voxel=0.01\"", count: 17).joined(separator: ","))]}"
            let jsonRefused = try await client.execute(
                uri: "/v1/captures", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: json))
            XCTAssertEqual(jsonRefused.status, .unprocessableContent)
            XCTAssertEqual(try jsonRefused.json()["field"] as? String, "filters")

            let listed = try await client.execute(uri: "/v1/captures", method: .get).json()
            XCTAssertEqual((listed["captures"] as? [Any])?.count, 0)
        }
    }

    func testAnExportIsHeldToTheCPUShareBeforeItIsQueued() async throws {
        let harness = try ServiceHarness { $0.maxRequestSeconds = 5 }
        defer { harness.remove() }
        let upload = try MultipartBody.tumFrame()
        try await harness.test { client in
            let created = try await client.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body)
            let id = try XCTUnwrap(try created.json()["id"] as? String)
            let steps = Array(repeating: "voxel=0.01", count: 17).joined(separator: "&")
            let many = try await client.execute(uri: "/v1/captures/\(id)/cloud.pcd?\(steps)", method: .get)
            XCTAssertEqual(many.status, .unprocessableContent)
            // Normals over a metre: every point's neighbourhood is most of the frame.
            let costly = try await client.execute(uri: "/v1/captures/\(id)/cloud.pcd?normals=1&normals=1", method: .get)
            XCTAssertEqual(costly.status, .unprocessableContent, String(buffer: costly.body))
            let detail = try XCTUnwrap(try costly.json()["detail"] as? String)
            XCTAssertTrue(detail.contains("--max-request-seconds") && detail.contains("CPU"), detail)
            let derived = harness.data.appendingPathComponent("captures/\(id)/derived")
            XCTAssertFalse(FileManager.default.fileExists(atPath: derived.path), "a refused export started work")
            // What the share allows still runs.
            let cheap = try await client.execute(uri: "/v1/captures/\(id)/cloud.pcd?voxel=0.02", method: .get)
            XCTAssertEqual(cheap.status, .ok)
        }
    }

    /// The issue's crash: 200 fused frames of the simulated camera. Held to a 64 MiB share, the
    /// capture stops with a problem naming the frame and the setting; the server answers on.
    func testAFusedCaptureOverItsMemoryShareIsAProblemNotACrash() async throws {
        let harness = try ServiceHarness { $0.maxRequestMemoryBytes = 64 << 20 }
        defer { harness.remove() }
        try await harness.test { client in
            let body = ByteBuffer(string: "{\"source\":\"synthetic:path=orbit,frames=200,color=256x192\",\"frames\":\"all\",\"fuse\":true}")
            let refused = try await client.execute(
                uri: "/v1/captures", method: .post, headers: [.contentType: "application/json"], body: body)
            XCTAssertEqual(refused.status, .unprocessableContent, String(buffer: refused.body))
            let detail = try XCTUnwrap(try refused.json()["detail"] as? String)
            XCTAssertTrue(detail.contains("fusing frame") && detail.contains("--max-request-memory-mb"), detail)
            let health = try await client.execute(uri: "/healthz", method: .get)
            XCTAssertEqual(health.status, .ok)
            let listed = try await client.execute(uri: "/v1/captures", method: .get).json()
            XCTAssertEqual((listed["captures"] as? [Any])?.count, 0)
            // Nothing half-written is left in the store.
            let staging = try FileManager.default.contentsOfDirectory(atPath: harness.data.appendingPathComponent("staging").path)
            XCTAssertEqual(staging, [])
        }
    }

    func testCPUEstimatesGrowWithPointsAndNeighbourhoods() {
        let voxel = CloudFilterProbe.estimate("voxel", "0.01", points: 1_000_000)
        let normals = CloudFilterProbe.estimate("normals", "0.1", points: 1_000_000)
        let wideNormals = CloudFilterProbe.estimate("normals", "1", points: 1_000_000)
        XCTAssertLessThan(voxel, normals)
        XCTAssertEqual(wideNormals / normals, 100, accuracy: 1, "a radius 10 times as large reaches 100 times the neighbours")
        XCTAssertEqual(CloudFilterProbe.estimate("voxel", "0.01", points: 2_000_000), 2 * voxel, accuracy: 1)
    }
}

/// A filter's CPU estimate from its CLI spelling.
enum CloudFilterProbe {
    static func estimate(_ name: String, _ value: String, points: Int) -> Double {
        (try? CaptureOrder.step(name, value))?.filter.estimatedNanoseconds(points: points) ?? .nan
    }
}
