import CloudCore
import CloudFiles
import CloudMeasure
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import SharedTestData
import XCTest

/// `GET /v1/captures/{id}/measure`: the report `cloudgen measure --json` gives for the stored
/// cloud, a simulated room's true size, made once and cached with an ETag, and problems for bad
/// parameters.
final class MeasureRouteTests: XCTestCase {
    func testMeasureEqualsTheLibraryOnTheStoredCloudAndTheRoomsTrueSize() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        try await harness.test { client in
            // A 5 x 4 x 2.8 m room scanned and fused on the server, in the room's frame (z up).
            let order = #"{"source": "synthetic:room=5x4x2.8,path=scan,frames=9,color=32x24", "fuse": true, "frame": "world"}"#
            let created = try await client.execute(
                uri: "/v1/captures", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: order))
            XCTAssertEqual(created.status, .created, String(buffer: created.body))
            let id = try XCTUnwrap(try created.json()["id"] as? String)

            let response = try await client.execute(uri: "/v1/captures/\(id)/measure?up=z", method: .get)
            XCTAssertEqual(response.status, .ok, String(buffer: response.body))
            XCTAssertEqual(response.headers[.contentType], "application/json")
            let served = try JSONDecoder().decode(RoomReport.self, from: Data(buffer: response.body))
            XCTAssertEqual(served.schema, "cloudgen.measure/1")
            XCTAssertEqual(served.source, "capture \(id)")
            XCTAssertEqual(served.up.method, "flag")
            XCTAssertEqual(served.outline, "closed")
            XCTAssertEqual(try XCTUnwrap(served.area).value, 20, accuracy: 0.2)
            XCTAssertEqual(try XCTUnwrap(served.height).value, 2.8, accuracy: 0.01)

            // The library on the stored file gives the same report, but for where it came from and its time.
            let stored = harness.data.appendingPathComponent("captures/\(id)/cloud.ply").path
            let loaded = try CloudReader.read(stored)
            var settings = MeasureSettings()
            settings.up = SIMD3(0, 0, 1)
            var expected = try RoomMeasurer.measure(
                RoomScan(
                    name: "capture \(id)", cloud: loaded.cloud,
                    cameras: [loaded.header.viewpoint ?? .identity]), settings: settings
            ).report
            expected.milliseconds = served.milliseconds
            XCTAssertEqual(served, expected)

            // Made once: the same bytes again, and 304 for its ETag.
            let etag = try XCTUnwrap(response.headers[.eTag])
            let again = try await client.execute(uri: "/v1/captures/\(id)/measure?up=z", method: .get)
            XCTAssertEqual(Data(buffer: again.body), Data(buffer: response.body))
            let unchanged = try await client.execute(uri: "/v1/captures/\(id)/measure?up=z", method: .get, headers: [.ifNoneMatch: etag])
            XCTAssertEqual(unchanged.status, .notModified)

            // Up from the planes (the default) finds the same room.
            let auto = try await client.execute(uri: "/v1/captures/\(id)/measure", method: .get)
            let found = try JSONDecoder().decode(RoomReport.self, from: Data(buffer: auto.body))
            XCTAssertEqual(found.up.method, "planes")
            XCTAssertEqual(try XCTUnwrap(found.area).value, 20, accuracy: 0.2)

            for (query, field) in [("up=sideways", "up"), ("leaf=0", "leaf"), ("leaf=abc", "leaf"), ("colour=1", "colour")] {
                let bad = try await client.execute(uri: "/v1/captures/\(id)/measure?\(query)", method: .get)
                XCTAssertEqual(bad.status, .badRequest, query)
                XCTAssertEqual(try bad.json()["field"] as? String, field, query)
            }
            let missing = try await client.execute(uri: "/v1/captures/00000000000000000000000000/measure", method: .get)
            XCTAssertTrue([.notFound, .badRequest].contains(missing.status), "\(missing.status)")
        }
    }
}
