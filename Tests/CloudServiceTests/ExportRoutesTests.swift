import CloudCore
import CloudFiles
import CloudPCL
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import SharedTestData
import XCTest

/// A capture's downloads: the stored PLY byte for byte, other encodings and on-the-fly filters
/// equal to `convert` on the stored file, ETag and ranges, previews at the size asked for.
final class ExportRoutesTests: XCTestCase {
    func testExportsListingAndDeletion() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        let upload = try MultipartBody.tumFrame()
        try await harness.test { client in
            var ids: [String] = []
            for _ in 0..<3 {
                let created = try await client.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body)
                XCTAssertEqual(created.status, .created)
                ids.append(try XCTUnwrap(try created.json()["id"] as? String))
            }
            let id = ids[0]
            let folder = harness.data.appendingPathComponent("captures/\(id)")

            // The stored file as it is (made by this first download: the store is lazy), with its ETag, 304 and a range.
            let ply = try await client.execute(uri: "/v1/captures/\(id)/cloud.ply", method: .get)
            let stored = try Data(contentsOf: folder.appendingPathComponent("cloud.ply"))
            XCTAssertEqual(Data(buffer: ply.body), stored)
            XCTAssertEqual(ply.headers[.contentLength], String(stored.count))
            let etag = try XCTUnwrap(ply.headers[.eTag])
            let again = try await client.execute(uri: "/v1/captures/\(id)/cloud.ply", method: .get, headers: [.ifNoneMatch: etag])
            XCTAssertEqual(again.status, .notModified)
            let part = try await client.execute(uri: "/v1/captures/\(id)/cloud.ply", method: .get, headers: [.range: "bytes=100-199"])
            XCTAssertEqual(part.status, .partialContent)
            XCTAssertEqual(Data(buffer: part.body), stored[100..<200])
            XCTAssertEqual(part.headers[.contentRange], "bytes 100-199/\(stored.count)")
            let tail = try await client.execute(uri: "/v1/captures/\(id)/cloud.ply", method: .get, headers: [.range: "bytes=-10"])
            XCTAssertEqual(Data(buffer: tail.body), stored.suffix(10))
            let beyond = try await client.execute(
                uri: "/v1/captures/\(id)/cloud.ply", method: .get, headers: [.range: "bytes=\(stored.count)-"])
            XCTAssertEqual(beyond.status, .rangeNotSatisfiable)
            XCTAssertEqual(beyond.headers[.contentRange], "bytes */\(stored.count)")

            // Other encodings and filters: the same cloud `convert` writes from the stored file.
            let original = try CloudReader.read(folder.appendingPathComponent("cloud.ply").path).cloud
            // `encoding`, as convert and the CLI spell it, and `format`, its older name here.
            for (query, format) in [
                ("cloud.pcd?encoding=ascii", CloudFileFormat.pcd(.ascii)), ("cloud.pcd?encoding=binary_compressed", .pcd(.compressed)),
                ("cloud.ply?encoding=ascii", .ply(.ascii)), ("cloud.pcd?format=ascii", .pcd(.ascii)),
                ("cloud.pcd?format=binary_compressed", .pcd(.compressed))
            ] {
                let response = try await client.execute(uri: "/v1/captures/\(id)/\(query)", method: .get)
                XCTAssertEqual(response.status, .ok, query)
                let cloud = try Data(buffer: response.body).withUnsafeBytes { try CloudReader.read(bytes: $0, path: query) }
                XCTAssertEqual(cloud.header.formatName, format.description, query)
                XCTAssertEqual(cloud.cloud.positions, original.positions, query)
                XCTAssertEqual(cloud.cloud.colors, original.colors, query)
            }
            let both = try await client.execute(uri: "/v1/captures/\(id)/cloud.pcd?encoding=ascii&format=ascii", method: .get)
            XCTAssertEqual(both.status, .badRequest, "one encoding, under one of its names")
            let filtered = try await client.execute(uri: "/v1/captures/\(id)/cloud.pcd?voxel=0.05&sor=10,2", method: .get)
            XCTAssertEqual(filtered.status, .ok)
            let served = try Data(buffer: filtered.body).withUnsafeBytes { try CloudReader.read(bytes: $0, path: "filtered.pcd") }.cloud
            var warnings: [CloudWarning] = []
            let steps = [try FilterArguments.step(option: "voxel", value: "0.05"), try FilterArguments.step(option: "sor", value: "10,2")]
            let (expected, _) = try FilterPipeline(steps: steps, organized: false).run(original, warnings: &warnings)
            XCTAssertEqual(served.positions, expected.positions)
            XCTAssertLessThan(served.count, original.count / 4)

            // The preview at the size asked for; the depth picture as stored.
            let preview = try await client.execute(
                uri: "/v1/captures/\(id)/preview.png?azimuth=20&elevation=10&width=200&height=150", method: .get)
            XCTAssertEqual(preview.headers[.contentType], "image/png")
            let png = Data(buffer: preview.body)
            XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            XCTAssertEqual(png[16..<24].reduce(0) { $0 << 8 | UInt64($1) }, 200 << 32 | 150, "IHDR width and height")
            // The depth picture is the CLI's --depth-image of the same frame.
            let depth = try await client.execute(uri: "/v1/captures/\(id)/depth.png", method: .get)
            XCTAssertEqual(depth.headers[.contentType], "image/png")
            XCTAssertEqual(Data(buffer: depth.body), try CLICapture.tumDepthImage())

            // Ten requests at once for a preview not yet drawn: one drawing, ten identical pictures.
            let cold = "/v1/captures/\(id)/preview.png?azimuth=-40&width=320&height=240"
            let pictures = try await withThrowingTaskGroup(of: Data.self) { group in
                for _ in 0..<10 { group.addTask { Data(buffer: try await client.execute(uri: cold, method: .get).body) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            XCTAssertEqual(Set(pictures).count, 1)
            XCTAssertEqual(
                try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("derived").path)
                    .filter { $0.hasSuffix(".png") && !$0.hasPrefix(".") }.count, 3, "preview, cold preview, depth")

            // Newest first, paged by `after`.
            let first = try await client.execute(uri: "/v1/captures?limit=2", method: .get).json()
            let page1 = try XCTUnwrap(first["captures"] as? [[String: Any]]).compactMap { $0["id"] as? String }
            XCTAssertEqual(page1, [ids[2], ids[1]])
            let next = try XCTUnwrap(first["next"] as? String)
            let second = try await client.execute(uri: next, method: .get).json()
            XCTAssertEqual(try XCTUnwrap(second["captures"] as? [[String: Any]]).compactMap { $0["id"] as? String }, [ids[0]])
            XCTAssertTrue(second["next"] is NSNull)

            // Deleted: row and files gone.
            let deleted = try await client.execute(uri: "/v1/captures/\(id)", method: .delete)
            XCTAssertEqual(deleted.status, .noContent)
            XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path))
            for (uri, method) in [
                ("/v1/captures/\(id)", HTTPRequest.Method.get), ("/v1/captures/\(id)/cloud.ply", .get), ("/v1/captures/\(id)", .delete)
            ] {
                let gone = try await client.execute(uri: uri, method: method)
                XCTAssertEqual(gone.status, .notFound, uri)
            }
        }
    }

    func testConvertReturnsTheConvertedCloudAndKeepsNothing() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        let bunny = try sharedData("pcl-clouds/bunny.pcd")
        var upload = MultipartBody()
        try upload.file("cloud", path: bunny)
        upload.field("format", "ply")
        upload.field("encoding", "ascii")
        upload.field("voxel", "0.01")
        let body = upload
        try await harness.test { client in
            let response = try await client.execute(uri: "/v1/convert", method: .post, headers: body.headers, body: body.body)
            XCTAssertEqual(response.status, .ok, String(buffer: response.body))
            XCTAssertEqual(response.headers[.contentDisposition], "attachment; filename=\"bunny.ply\"")
            let converted = try Data(buffer: response.body).withUnsafeBytes { try CloudReader.read(bytes: $0, path: "bunny.ply") }
            XCTAssertEqual(converted.header.formatName, "PLY ascii")
            var warnings: [CloudWarning] = []
            let (expected, _) = try FilterPipeline(steps: [try FilterArguments.step(option: "voxel", value: "0.01")], organized: false)
                .run(try CloudReader.read(bunny).cloud, warnings: &warnings)
            XCTAssertEqual(converted.cloud.positions, expected.positions)
            XCTAssertEqual(try FileManager.default.subpathsOfDirectory(atPath: harness.data.appendingPathComponent("uploads").path), [])
            let list = try await client.execute(uri: "/v1/captures", method: .get).json()
            XCTAssertEqual((list["captures"] as? [Any])?.count, 0)

            var broken = MultipartBody()
            broken.file("cloud", Data("ply\nformat ascii 1.0\nelement vertex 99999999999\nend_header\n".utf8), filename: "x.ply")
            let refused = try await client.execute(uri: "/v1/convert", method: .post, headers: broken.headers, body: broken.body)
            XCTAssertEqual(refused.status, .unprocessableContent)
            XCTAssertEqual(try refused.json()["field"] as? String, "cloud")
        }
    }
}
