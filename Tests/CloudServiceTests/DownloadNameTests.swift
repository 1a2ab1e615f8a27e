import Foundation
import Hummingbird
import HummingbirdTesting
import XCTest

@testable import CloudService

/// Every download is an attachment named after the capture and its variant, safe for RFC 6266
/// readers whatever the name holds.
final class DownloadNameTests: XCTestCase {
    func testDownloadsAreAttachmentsNamedAfterTheCaptureAndTheVariant() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        var upload = try MultipartBody.tumFrame()
        upload.field("name", "kitchen")
        let body = upload
        try await harness.test { client in
            let created = try await client.execute(uri: "/v1/captures", method: .post, headers: body.headers, body: body.body)
            let id = try XCTUnwrap(try created.json()["id"] as? String)
            let expected = [
                "cloud.ply": "kitchen.ply",
                "cloud.pcd?voxel=0.01": "kitchen-voxel0.01.pcd",
                "cloud.pcd?format=ascii&voxel=0.02": "kitchen-ascii-voxel0.02.pcd",
                "preview.png": "kitchen-preview.png",
                "preview.png?azimuth=60&width=320": "kitchen-preview-az60-w320.png",
                "depth.png": "kitchen-depth.png"
            ]
            for (file, name) in expected {
                let answer = try await client.execute(uri: "/v1/captures/\(id)/\(file)", method: .get)
                XCTAssertEqual(answer.status, .ok, file)
                XCTAssertEqual(answer.headers[.contentDisposition], "attachment; filename=\"\(name)\"; filename*=UTF-8''\(name)", file)
            }
            // A byte range of the file is still that file.
            let part = try await client.execute(uri: "/v1/captures/\(id)/cloud.ply", method: .get, headers: [.range: "bytes=0-99"])
            XCTAssertEqual(part.status, .partialContent)
            XCTAssertEqual(part.headers[.contentDisposition], "attachment; filename=\"kitchen.ply\"; filename*=UTF-8''kitchen.ply")

            // Unnamed again: the id names the file. A name with a path and quotes cannot escape it.
            _ = try await client.execute(
                uri: "/v1/captures/\(id)", method: .patch, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"name": null}"#))
            let unnamed = try await client.execute(uri: "/v1/captures/\(id)/cloud.ply", method: .get)
            XCTAssertEqual(unnamed.headers[.contentDisposition], "attachment; filename=\"\(id).ply\"; filename*=UTF-8''\(id).ply")
            _ = try await client.execute(
                uri: "/v1/captures/\(id)", method: .patch, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"name": "../Küche \"Süd\""}"#))
            let tricky = try await client.execute(uri: "/v1/captures/\(id)/depth.png", method: .get)
            XCTAssertEqual(
                tricky.headers[.contentDisposition],
                "attachment; filename=\"-K_che -S_d--depth.png\"; filename*=UTF-8''-K%C3%BCche%20-S%C3%BCd--depth.png")
        }
    }

    /// The header's `filename*` read back by Python's email parser (another program's RFC 2231
    /// decoder; it does not prefer filename* over filename as RFC 6266 asks, so it is given that
    /// parameter alone) is the exact name, and the whole header is ASCII.
    func testANonASCIINameReadsBackExactlyInPythonsHeaderParser() throws {
        let name = "Küche \"Süd\" 東京-preview.png"
        let header = DownloadName.contentDisposition(name)
        XCTAssertTrue(header.hasPrefix("attachment; filename=\"K_che _S_d_ __-preview.png\"; filename*=UTF-8''"), header)
        let extended = try XCTUnwrap(header.components(separatedBy: "; ").first { $0.hasPrefix("filename*=") })
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = [
            "python3", "-c",
            """
            import sys
            from email.message import EmailMessage
            m = EmailMessage()
            m['Content-Disposition'] = sys.argv[1]
            sys.stdout.write(m.get_filename())
            """, "attachment; " + extended
        ]
        let pipe = Pipe()
        python.standardOutput = pipe
        try python.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        python.waitUntilExit()
        XCTAssertEqual(python.terminationStatus, 0)
        XCTAssertEqual(String(decoding: output, as: UTF8.self), name)
        XCTAssertTrue(header.unicodeScalars.allSatisfy(\.isASCII), header)
    }
}
