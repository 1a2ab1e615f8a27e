import CloudCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import XCTest

@testable import CloudService

/// The small doors an attacker tries: token bytes that are not text, a second Host, a NUL in a
/// search, a recording's name in capitals, a WebSocket refused before its upgrade, an extension's
/// page opening a socket, a PATCH of another media type.
final class RequestEdgeTests: XCTestCase {
    /// A request over a raw connection: its status and the body after the head.
    private static func exchange(_ port: Int, _ request: Data) throws -> (status: Int?, head: String, body: String) {
        let connection = try RawConnection(port: port)
        try connection.send(request)
        let text = connection.receive(
            for: 10,
            until: { text in
                guard let end = text.range(of: "\r\n\r\n") else { return false }
                let length =
                    text[..<end.lowerBound].split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                return text.utf8.count >= text[..<end.upperBound].utf8.count + length
            }
        ).text
        let parts = text.components(separatedBy: "\r\n\r\n")
        return (RawConnection.status(of: text), parts.first ?? "", parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    func testATokenFileMustBePrintableASCII() throws {
        let folder = try scratchFolder()
        let path = folder.appendingPathComponent("token").path
        _ = FileManager.default.createFile(atPath: path, contents: Data((0..<16).map { 0xff - UInt8($0) }))
        XCTAssertThrowsError(try ServiceConfiguration.readToken(path)) { error in
            XCTAssertTrue("\(error)".contains("printable ASCII"), "\(error)")
        }
        _ = FileManager.default.createFile(atPath: path, contents: Data("0123456789 abcdef\n".utf8))
        XCTAssertThrowsError(try ServiceConfiguration.readToken(path), "a space inside the token")
        _ = FileManager.default.createFile(atPath: path, contents: Data("  0123456789abcdef0123\r\nsecond line\n".utf8))
        XCTAssertEqual(try ServiceConfiguration.readToken(path), "0123456789abcdef0123")
    }

    /// Bytes that are not UTF-8 reach the server as U+FFFD: none of them is the token's.
    func testAuthorizationBytesThatAreNotTextNeverMatch() async throws {
        let token = "0123456789abcdef"
        let harness = try ServiceHarness { $0.token = token }
        defer { harness.remove() }
        try await harness.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            for (name, bytes) in [
                ("0x80", [UInt8](repeating: 0x80, count: 16)), ("0xc0", [UInt8](repeating: 0xc0, count: 16)),
                ("U+FFFD", Array(String(repeating: "\u{FFFD}", count: 16).utf8))
            ] {
                let request =
                    Data("GET /v1/captures HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAuthorization: Bearer ".utf8) + bytes
                    + Data("\r\n\r\n".utf8)
                XCTAssertEqual(try Self.exchange(port, request).status, 401, name)
            }
            let good = Data(
                "GET /v1/captures HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nAuthorization: Bearer \(token)\r\n\r\n".utf8)
            XCTAssertEqual(try Self.exchange(port, good).status, 200)
        }
    }

    func testASecondHostHeaderIsRefused() async throws {
        let harness = try ServiceHarness { $0.allowedHosts = ["scans.local"] }
        defer { harness.remove() }
        try await harness.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            for hosts in [["localhost", "attacker.example"], ["localhost", "localhost"], ["scans.local", "localhost"]] {
                let fields = hosts.map { "Host: \($0)\r\n" }.joined()
                let answer = try Self.exchange(port, Data("GET /v1/captures HTTP/1.1\r\n\(fields)Connection: close\r\n\r\n".utf8))
                XCTAssertEqual(answer.status, 400, "\(hosts)")
                XCTAssertTrue(answer.body.contains("more than one Host"), answer.body)
            }
            let one = try Self.exchange(port, Data("GET /v1/captures HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8))
            XCTAssertEqual(one.status, 200)
        }
    }

    func testASearchWithAControlCharacterIsRefused() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        let upload = try MultipartBody.tumFrame()
        try await harness.test { client in
            let stored = try await client.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body)
            XCTAssertEqual(stored.status, .created)
            for q in ["%00", "a%00b", "%07"] {
                let answer = try await client.execute(uri: "/v1/captures?q=\(q)", method: .get)
                XCTAssertEqual(answer.status, .badRequest, q)
                XCTAssertEqual(try answer.json()["field"] as? String, "q")
            }
            let none = try await client.execute(uri: "/v1/captures?q=nothing-like-it", method: .get)
            XCTAssertEqual((try none.json()["captures"] as? [Any])?.count, 0, "text is still searched")
        }
    }

    /// `openni2:NAME.ONI` is a recording's path as much as `.oni` is: outside every --allow-dir
    /// it is refused, and the answer says nothing of whether such a file exists.
    func testARecordingNamedInCapitalsIsHeldToTheAllowedFolders() async throws {
        let allowed = try scratchFolder()
        let harness = try ServiceHarness { $0.allowedDirectories = [allowed.path] }
        defer { harness.remove() }
        try await harness.test { client in
            for source in ["openni2:SCAN.ONI", "openni2:scan.Oni", "openni2:/etc/passwd.ONI"] {
                let body = try JSONSerialization.data(withJSONObject: ["source": source])
                let answer = try await client.execute(
                    uri: "/v1/captures", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(data: body))
                XCTAssertEqual(answer.status, .forbidden, "\(source): \(String(buffer: answer.body))")
                XCTAssertTrue(String(buffer: answer.body).contains("--allow-dir"), String(buffer: answer.body))
            }
        }
    }

    func testAStreamsPatchTakesJSONOnly() async throws {
        try await StreamBadInputTests.withPushStream { client, _, id in
            let body = ByteBuffer(string: #"{"range": "0.3,2"}"#)
            for type in ["text/plain", "application/x-www-form-urlencoded"] {
                let answer = try await client.execute(uri: "/v1/streams/\(id)", method: .patch, headers: [.contentType: type], body: body)
                XCTAssertEqual(answer.status, .unsupportedMediaType, type)
            }
            let none = try await client.execute(uri: "/v1/streams/\(id)", method: .patch, body: body)
            XCTAssertEqual(none.status, .unsupportedMediaType, "no Content-Type")
            let json = try await client.execute(
                uri: "/v1/streams/\(id)", method: .patch, headers: [.contentType: "application/json"], body: body)
            XCTAssertEqual(json.status, .ok, String(buffer: json.body))
        }
    }

    /// A WebSocket refused before its upgrade gets the problem document the same request gets
    /// over HTTP (401, 403, 404, 421), not a bare 400; an extension's or a file's page is a page.
    func testRefusedUpgradesAreProblemDocuments() async throws {
        let token = "0123456789abcdef0123"
        let harness = try ServiceHarness { $0.token = token }
        defer { harness.remove() }
        let order = try JSONSerialization.data(withJSONObject: ["push": ["intrinsics": try StreamFixture.primesense()]])
        try await harness.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            let created = try await client.execute(
                uri: "/v1/streams", method: .post, headers: [.contentType: "application/json", .authorization: "Bearer \(token)"],
                body: ByteBuffer(data: order))
            XCTAssertEqual(created.status, .created, String(buffer: created.body))
            let id = try XCTUnwrap(try created.json()["id"] as? String)
            func upgrade(_ path: String, host: String = "localhost", fields: [String] = ["Authorization: Bearer \(token)"]) throws -> (
                status: Int?, head: String, body: String
            ) {
                let request =
                    "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                    + fields.map { $0 + "\r\n" }.joined() + "\r\n"
                return try Self.exchange(port, Data(request.utf8))
            }
            let cases: [(name: String, answer: (status: Int?, head: String, body: String), status: Int, detail: String)] = [
                ("no token", try upgrade("/v1/streams/\(id)/live", fields: []), 401, "Bearer"),
                ("wrong host", try upgrade("/v1/streams/\(id)/live", host: "attacker.example"), 421, "attacker.example"),
                (
                    "foreign page",
                    try upgrade("/v1/streams/\(id)/push", fields: ["Authorization: Bearer \(token)", "Origin: http://attacker.example"]),
                    403, "attacker.example"
                ),
                (
                    "extension",
                    try upgrade(
                        "/v1/streams/\(id)/push", fields: ["Authorization: Bearer \(token)", "Origin: chrome-extension://abcdefgh"]),
                    403, "chrome-extension"
                ),
                (
                    "file page", try upgrade("/v1/streams/\(id)/live", fields: ["Authorization: Bearer \(token)", "Origin: file://"]), 403,
                    "file"
                ),
                ("no stream", try upgrade("/v1/streams/0123456789abcdef/live"), 404, "no stream"),
                ("no socket", try upgrade("/v1/captures"), 404, "no WebSocket")
            ]
            for (name, answer, status, detail) in cases {
                XCTAssertEqual(answer.status, status, "\(name): \(answer.head)")
                XCTAssertTrue(answer.head.lowercased().contains("content-type: application/problem+json"), "\(name): \(answer.head)")
                let document = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
                XCTAssertEqual(document?["status"] as? Int, status, name)
                XCTAssertTrue((document?["detail"] as? String)?.contains(detail) == true, "\(name): \(answer.body)")
            }
            // The right upgrade is still made.
            XCTAssertEqual(try upgrade("/v1/streams/\(id)/live").status, 101)
        }
        XCTAssertEqual(harness.errors.messages, [], "refused upgrades are the client's mistakes, not the server's errors")
    }
}
