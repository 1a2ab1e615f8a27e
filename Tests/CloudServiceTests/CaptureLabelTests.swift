import Foundation
import Hummingbird
import HummingbirdTesting
import XCTest

/// A capture's name, tags and note: set at upload (form fields, JSON keys), changed with PATCH,
/// shown in its document and the listing, with the uploaded files' own names.
final class CaptureLabelTests: XCTestCase {
    func testLabelsAndFileNamesSetAtUploadAreInTheDocumentAndTheListing() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        var upload = try MultipartBody.tumFrame()
        upload.field("name", "  Kitchen, north wall ")
        upload.field("tags", "kitchen,floor-1")
        upload.field("tags", "tum,kitchen")
        upload.field("note", "taken at noon\nwith the lights on")
        let body = upload
        try await harness.test { client in
            let created = try await client.execute(uri: "/v1/captures", method: .post, headers: body.headers, body: body.body)
            XCTAssertEqual(created.status, .created, String(buffer: created.body))
            let document = try created.json()
            XCTAssertEqual(document["name"] as? String, "Kitchen, north wall")
            XCTAssertEqual(document["tags"] as? [String], ["kitchen", "floor-1", "tum"])
            XCTAssertEqual(document["note"] as? String, "taken at noon\nwith the lights on")
            XCTAssertEqual(
                document["files"] as? [String: String],
                ["depth": "TUM_depth.png", "color": "TUM_color.png", "intrinsics": "camera_primesense.json"])
            let id = try XCTUnwrap(document["id"] as? String)

            let fetched = try await client.execute(uri: "/v1/captures/\(id)", method: .get).json()
            XCTAssertEqual(fetched["name"] as? String, "Kitchen, north wall")
            let listed = try await client.execute(uri: "/v1/captures", method: .get).json()
            let first = try XCTUnwrap((listed["captures"] as? [[String: Any]])?.first)
            XCTAssertEqual(first["tags"] as? [String], ["kitchen", "floor-1", "tum"])
            XCTAssertEqual((first["files"] as? [String: String])?["depth"], "TUM_depth.png")
        }
    }

    func testAJSONCaptureTakesLabelsAndKeepsNoFileNames() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        try await harness.test { client in
            let body = #"{"source": "synthetic:seed=3", "name": "simulated room", "tags": ["sim", "seed3"], "note": "baseline"}"#
            let created = try await client.execute(
                uri: "/v1/captures", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: body))
            XCTAssertEqual(created.status, .created, String(buffer: created.body))
            let document = try created.json()
            XCTAssertEqual(document["name"] as? String, "simulated room")
            XCTAssertEqual(document["tags"] as? [String], ["sim", "seed3"])
            XCTAssertEqual(document["note"] as? String, "baseline")
            XCTAssertEqual(document["files"] as? [String: String], [:])

            let bad = try await client.execute(
                uri: "/v1/captures", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"source": "synthetic", "tags": ["a b"]}"#))
            XCTAssertEqual(bad.status, .unprocessableContent)
            XCTAssertEqual(try bad.json()["field"] as? String, "tags")
        }
    }

    func testPatchChangesTheLabelsAndTheETagAndRefusesWhatItCannotTake() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        let upload = try MultipartBody.tumFrame()
        try await harness.test { client in
            let created = try await client.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body)
            let id = try XCTUnwrap(try created.json()["id"] as? String)
            let before = try await client.execute(uri: "/v1/captures/\(id)", method: .get)
            let patch: HTTPFields = [.contentType: "application/merge-patch+json"]

            let named = try await client.execute(
                uri: "/v1/captures/\(id)", method: .patch, headers: patch,
                body: ByteBuffer(string: #"{"name": "Küche", "tags": ["a", "b"], "note": "first"}"#))
            XCTAssertEqual(named.status, .ok, String(buffer: named.body))
            XCTAssertNotEqual(named.headers[.eTag], before.headers[.eTag], "the document changed, so must its ETag")
            // A merge patch: tags left out stay, null clears the note.
            let changed = try await client.execute(
                uri: "/v1/captures/\(id)", method: .patch, headers: patch,
                body: ByteBuffer(string: #"{"name": "Kitchen", "note": null}"#))
            XCTAssertEqual(changed.status, .ok)
            let fetched = try await client.execute(uri: "/v1/captures/\(id)", method: .get)
            let document = try fetched.json()
            XCTAssertEqual(document["name"] as? String, "Kitchen")
            XCTAssertEqual(document["tags"] as? [String], ["a", "b"])
            XCTAssertTrue(document["note"] is NSNull)
            XCTAssertEqual(fetched.headers[.eTag], changed.headers[.eTag])
            XCTAssertEqual(document["points"] as? Int, try before.json()["points"] as? Int, "nothing else of the capture changes")

            let cases: [(String, HTTPFields, HTTPResponse.Status, String?)] = [
                (#"{"points": 3}"#, patch, .badRequest, "points"),
                (#"{"name": "a\u0007b"}"#, patch, .unprocessableContent, "name"),
                (#"{"name": 5}"#, patch, .unprocessableContent, "name"),
                ("{\"name\": \"\(String(repeating: "x", count: 121))\"}", patch, .unprocessableContent, "name"),
                (#"{"tags": ["ok", "not/ok"]}"#, patch, .unprocessableContent, "tags"),
                (#"["name"]"#, patch, .badRequest, nil),
                (#"{"name": "a", "note": "b", "name": "c"}"#, patch, .badRequest, "name"),
                (#"{"name": "x"}"#, [.contentType: "text/plain"], .unsupportedMediaType, nil)
            ]
            for (body, headers, status, field) in cases {
                let refused = try await client.execute(
                    uri: "/v1/captures/\(id)", method: .patch, headers: headers, body: ByteBuffer(string: body))
                XCTAssertEqual(refused.status, status, body)
                XCTAssertEqual(refused.headers[.contentType], "application/problem+json", body)
                XCTAssertEqual(try refused.json()["field"] as? String, field, body)
            }
            let unchanged = try await client.execute(uri: "/v1/captures/\(id)", method: .get).json()
            XCTAssertEqual(unchanged["name"] as? String, "Kitchen", "a refused patch changes nothing")
            // null clears the tags; a key left out (the name) stays.
            let cleared = try await client.execute(
                uri: "/v1/captures/\(id)", method: .patch, headers: patch, body: ByteBuffer(string: #"{"tags": null}"#))
            XCTAssertEqual(try cleared.json()["tags"] as? [String], [])
            XCTAssertEqual(try cleared.json()["name"] as? String, "Kitchen")

            let missing = try await client.execute(
                uri: "/v1/captures/\(String(repeating: "0", count: 26))", method: .patch, headers: patch,
                body: ByteBuffer(string: #"{"name": "x"}"#))
            XCTAssertEqual(missing.status, .notFound)
        }
    }
}
