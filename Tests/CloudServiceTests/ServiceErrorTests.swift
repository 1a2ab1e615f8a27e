import CloudService
import Foundation
import Hummingbird
import HummingbirdTesting
import SharedTestData
import XCTest

/// Every refusal is problem+json with the right status and names what was wrong; none is a 500,
/// and the server answers normally afterwards.
/// (No stored state: the service's test closures call its helpers.)
final class ServiceErrorTests: XCTestCase, @unchecked Sendable {
    private func assertProblem(
        _ response: TestResponse, _ status: HTTPResponse.Status, field: String? = nil, mentions: String? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        XCTAssertEqual(response.status, status, String(buffer: response.body), file: file, line: line)
        XCTAssertEqual(response.headers[.contentType], "application/problem+json", file: file, line: line)
        let problem = try response.json(file: file, line: line)
        XCTAssertEqual(problem["status"] as? Int, Int(status.code), file: file, line: line)
        XCTAssertEqual(problem["title"] as? String, status.reasonPhrase, file: file, line: line)
        if let field { XCTAssertEqual(problem["field"] as? String, field, "\(problem)", file: file, line: line) }
        if let mentions {
            let detail = problem["detail"] as? String ?? ""
            XCTAssertTrue(detail.contains(mentions), "\(detail) should mention \(mentions)", file: file, line: line)
        }
    }

    func testAProblemIsTheSameBytesEveryTime() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        try await harness.test { client in
            let refused = try await client.execute(uri: "/v1/captures?sort=size", method: .get)
            // Keys sorted, slashes as they are: a client or a cache may compare the bytes.
            XCTAssertEqual(
                String(buffer: refused.body),
                #"{"detail":"sort 'size': needs one of created, -created, name, -name, points, -points","field":"sort","instance":"/v1/captures","status":400,"title":"Bad Request","type":"about:blank"}"#
            )
        }
    }

    func testBadUploadsAreRefusedByPartAndField() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        try await harness.test { client in
            var noDepth = MultipartBody()
            try noDepth.file("intrinsics", path: try sharedData("open3d-rgbd/camera_primesense.json"))
            try self.assertProblem(
                try await client.execute(uri: "/v1/captures", method: .post, headers: noDepth.headers, body: noDepth.body),
                .badRequest, field: "depth")

            var corrupt = try MultipartBody.tumFrame()
            corrupt.file("color", Data("not an image".utf8))
            try self.assertProblem(
                try await client.execute(uri: "/v1/captures", method: .post, headers: corrupt.headers, body: corrupt.body),
                .badRequest, field: "color", mentions: "twice")

            var truncated = MultipartBody()
            let png = try Data(contentsOf: URL(fileURLWithPath: try sharedData("open3d-rgbd/other_formats/TUM_depth.png")))
            truncated.file("depth", png.prefix(png.count / 2))
            try truncated.file("intrinsics", path: try sharedData("open3d-rgbd/camera_primesense.json"))
            truncated.field("depth_scale", "5000")
            try self.assertProblem(
                try await client.execute(uri: "/v1/captures", method: .post, headers: truncated.headers, body: truncated.body),
                .unprocessableContent, field: "depth", mentions: "depth")

            for (name, value) in [
                ("voxel", "-1"), ("voxel", "abc"), ("depth_scale", "0"), ("range", "3,1"), ("sor", "20"),
                ("depth_encoding", "kinect2"), ("organized", "maybe"), ("crop", "1,2,3")
            ] {
                var body = try MultipartBody.tumFrame()
                body.field(name, value)
                try self.assertProblem(
                    try await client.execute(uri: "/v1/captures", method: .post, headers: body.headers, body: body.body),
                    .unprocessableContent, field: name)
            }
            var unknown = try MultipartBody.tumFrame()
            unknown.field("voxels", "0.01")
            try self.assertProblem(
                try await client.execute(uri: "/v1/captures", method: .post, headers: unknown.headers, body: unknown.body),
                .badRequest, field: "voxels")

            try self.assertProblem(
                try await client.execute(
                    uri: "/v1/captures", method: .post, headers: [.contentType: "text/plain"],
                    body: ByteBuffer(string: "hello")), .unsupportedMediaType)
            try self.assertProblem(
                try await client.execute(
                    uri: "/v1/captures", method: .post, headers: [.contentType: "multipart/form-data"],
                    body: ByteBuffer(string: "hello")), .unsupportedMediaType, mentions: "boundary")
            try self.assertProblem(
                try await client.execute(
                    uri: "/v1/captures", method: .post,
                    headers: [.contentType: "multipart/form-data; boundary=xyz"],
                    body: ByteBuffer(string: "--xyz\r\nContent-Disposition: form-data; name=\"depth\"\r\n\r\nabc")),
                .badRequest, mentions: "closing boundary")

            // Nothing of the refused uploads is left in the data folder.
            let leftovers = try FileManager.default.subpathsOfDirectory(atPath: harness.data.appendingPathComponent("uploads").path)
            XCTAssertEqual(leftovers, [])
            let good = try MultipartBody.tumFrame()
            let created = try await client.execute(uri: "/v1/captures", method: .post, headers: good.headers, body: good.body)
            XCTAssertEqual(created.status, .created)
        }
    }

    func testAnUploadOverTheLimitIs413AndLeavesNothing() async throws {
        let harness = try ServiceHarness { $0.maxUploadBytes = 1 << 20 }
        defer { harness.remove() }
        try await harness.test(.live) { client in
            var body = try MultipartBody.tumFrame()
            body.file("color", Data(repeating: 7, count: 2 << 20))
            try self.assertProblem(
                try await client.execute(uri: "/v1/captures", method: .post, headers: body.headers, body: body.body),
                .contentTooLarge, mentions: "--max-upload-mb")
            let leftovers = try FileManager.default.subpathsOfDirectory(atPath: harness.data.appendingPathComponent("uploads").path)
            XCTAssertEqual(leftovers, [])
            let list = try await client.execute(uri: "/v1/captures", method: .get)
            XCTAssertEqual((try list.json()["captures"] as? [Any])?.count, 0)
        }
    }

    func testUnknownPathsMethodsAndPathTricks() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        try await harness.test { client in
            try self.assertProblem(try await client.execute(uri: "/v2/captures", method: .get), .notFound)
            let put = try await client.execute(uri: "/v1/captures", method: .put)
            try self.assertProblem(put, .methodNotAllowed)
            XCTAssertEqual(put.headers[.allow], "GET, HEAD, POST")
            try self.assertProblem(
                try await client.execute(uri: "/v1/captures/01m898v1k1713dg6pzeegt8k1j/cloud.ply", method: .post), .methodNotAllowed)
            for path in [
                "/v1/captures/..%2F..%2Findex.sqlite", "/v1/captures/%2e%2e", "/v1/captures/../index.sqlite",
                "/v1/captures/%2Fetc%2Fpasswd/cloud.ply", "/v1/captures/01M898V1K1713DG6PZEEGT8K1J", "/v1/jobs/..%2f..%2fx",
                "/v1/captures/01m898v1k1713dg6pzeegt8k1j"
            ] {
                let response = try await client.execute(uri: path, method: .get)
                XCTAssertTrue([400, 404].contains(response.status.code), "\(path): \(response.status)")
                XCTAssertEqual(response.headers[.contentType], "application/problem+json", path)
            }
            // HEAD is GET without the body.
            let head = try await client.execute(uri: "/healthz", method: .head)
            XCTAssertEqual(head.status, .ok)
            XCTAssertEqual(head.body.readableBytes, 0)
            for query in ["limit=0", "limit=101", "limit=x", "after=..%2F", "after=zz", "limt=3"] {
                try self.assertProblem(try await client.execute(uri: "/v1/captures?\(query)", method: .get), .badRequest)
            }
        }
    }

    func testJSONCapturesRefuseUnknownKeysAndFoldersNotAllowed() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        try await harness.test { client in
            let json: HTTPFields = [.contentType: "application/json"]
            func post(_ body: String) async throws -> TestResponse {
                try await client.execute(uri: "/v1/captures", method: .post, headers: json, body: ByteBuffer(string: body))
            }
            try self.assertProblem(try await post("[1]"), .badRequest)
            try self.assertProblem(try await post("{\"source\": \"synthetic\", \"colour\": 1}"), .badRequest, field: "colour")
            try self.assertProblem(try await post("{\"frames\": 2}"), .badRequest, field: "source")
            try self.assertProblem(try await post("{\"source\": \"nosuch:x\"}"), .unprocessableContent, field: "source")
            try self.assertProblem(
                try await post("{\"source\": \"redwood:\(try sharedData("open3d-rgbd"))\"}"), .forbidden, field: "source",
                mentions: "--allow-dir")
            try self.assertProblem(try await post("{\"source\": \"synthetic\", \"frames\": 3}"), .unprocessableContent, field: "fuse")
            try self.assertProblem(
                try await post("{\"source\": \"synthetic\", \"filters\": [\"voxel=0\"]}"), .unprocessableContent, field: "voxel")
            try self.assertProblem(
                try await post("{\"source\": \"synthetic\", \"filters\": [\"explode\"]}"), .unprocessableContent, field: "filters")
            try self.assertProblem(
                try await post("{\"source\": \"synthetic\", \"fuse\": true, \"frames\": 2, \"filters\": [\"foreground\"]}"),
                .unprocessableContent, field: "fuse")
            // No camera is attached here: the request's source, not the server, is at fault.
            try self.assertProblem(try await post("{\"source\": \"kinect\"}"), .unprocessableContent, field: "source")
            // Each key's value must be of a type it can take; a key given twice is refused, not read one way or the other.
            try self.assertProblem(
                try await post(#"{"source": "synthetic", "frames": [2]}"#), .badRequest, field: "frames",
                mentions: "string, number or boolean")
            try self.assertProblem(try await post(#"{"source": "synthetic", "fuse": null}"#), .badRequest, field: "fuse")
            try self.assertProblem(try await post(#"{"source": "synthetic", "filters": "voxel=0.01"}"#), .badRequest, field: "filters")
            try self.assertProblem(try await post(#"{"source": 5}"#), .badRequest, field: "source", mentions: "required")
            try self.assertProblem(try await post(#"{"source": "synthetic", "name": 5}"#), .unprocessableContent, field: "name")
            try self.assertProblem(try await post(#"{"source": "synthetic", "tags": {"a": 1}}"#), .unprocessableContent, field: "tags")
            try self.assertProblem(
                try await post(#"{"source": "synthetic", "frames": 1, "frames": 2}"#), .badRequest, field: "frames",
                mentions: "twice")
            // Numbers and strings alike reach the form's parsers: 0 frames is out of range either way.
            try self.assertProblem(try await post(#"{"source": "synthetic", "frames": 0}"#), .unprocessableContent, field: "frames")
            try self.assertProblem(try await post(#"{"source": "synthetic", "frames": "0"}"#), .unprocessableContent, field: "frames")
            try self.assertProblem(
                try await post(#"{"source": "synthetic", "frames": 3.0}"#), .unprocessableContent, field: "fuse",
                mentions: "frames 3:")
        }
    }
}
