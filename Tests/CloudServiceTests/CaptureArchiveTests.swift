import Foundation
import Hummingbird
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import SharedTestData
import XCTest

/// GET /v1/captures/{id}/capture.zip: the whole capture in one archive that other programs'
/// readers (Python's zipfile, Info-ZIP's unzip) accept, holding exactly the files the routes serve.
final class CaptureArchiveTests: XCTestCase {
    func testTheCapturesZipHoldsItsFilesAndOpensInPythonAndUnzip() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: scratch) }
        var upload = try MultipartBody.tumFrame()
        upload.field("name", "Küche")
        let body = upload
        try await harness.test { client in
            let created = try await client.execute(uri: "/v1/captures", method: .post, headers: body.headers, body: body.body)
            let document = try created.json()
            let id = try XCTUnwrap(document["id"] as? String)
            XCTAssertEqual((document["links"] as? [String: String])?["zip"], "/v1/captures/\(id)/capture.zip")

            let zip = try await client.execute(uri: "/v1/captures/\(id)/capture.zip", method: .get)
            XCTAssertEqual(zip.status, .ok)
            XCTAssertEqual(zip.headers[.contentType], "application/zip")
            XCTAssertEqual(zip.headers[.contentLength], String(zip.body.readableBytes))
            XCTAssertEqual(zip.headers[.contentDisposition], "attachment; filename=\"K_che.zip\"; filename*=UTF-8''K%C3%BCche.zip")
            let path = scratch.appendingPathComponent("capture.zip")
            try Data(buffer: zip.body).write(to: path)

            // Info-ZIP tests every member's CRC.
            let unzip = try Self.run(["unzip", "-t", path.path])
            XCTAssertEqual(unzip.status, 0, unzip.output)
            XCTAssertTrue(unzip.output.contains("No errors detected"), unzip.output)
            // Python's zipfile lists the members and gives their bytes, compared with the routes'.
            let python = try Self.run([
                "python3", "-c",
                """
                import hashlib, sys, zipfile
                z = zipfile.ZipFile(sys.argv[1])
                assert z.testzip() is None
                for info in z.infolist():
                    print(info.filename, info.compress_type, hashlib.sha256(z.read(info)).hexdigest())
                """, path.path
            ])
            XCTAssertEqual(python.status, 0, python.output)
            var expected: [String] = []
            for (member, route) in [
                ("capture.json", ""), ("cloud.ply", "/cloud.ply"), ("preview.png", "/preview.png"), ("depth.png", "/depth.png")
            ] {
                let served = try await client.execute(uri: "/v1/captures/\(id)\(route)", method: .get)
                XCTAssertEqual(served.status, .ok, member)
                expected.append("Küche/\(member) 0 \(try Self.sha256(Data(buffer: served.body)))")
            }
            XCTAssertEqual(python.output.split(separator: "\n").map(String.init), expected)

            let missing = try await client.execute(uri: "/v1/captures/\(String(repeating: "0", count: 26))/capture.zip", method: .get)
            XCTAssertEqual(missing.status, .notFound)
        }
    }

    private static func sha256(_ data: Data) throws -> String {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("member")
        try data.write(to: file)
        return String(try run(["sha256sum", file.path]).output.prefix(64))
    }

    private static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}
