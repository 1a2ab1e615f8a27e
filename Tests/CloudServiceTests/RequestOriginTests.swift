import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import XCTest

@testable import CloudService

/// Web pages the user visits cannot drive a server on loopback: DNS rebinding's foreign Host is
/// refused, a foreign Origin cannot upload or delete, another site's `<img>` cannot make it render;
/// an origin named with --allow-origin can, with CORS.
final class RequestOriginTests: XCTestCase {
    func testOnlyTheServersOwnNamesAreAnswered() async throws {
        let harness = try ServiceHarness { $0.allowedHosts = ["scans.local"] }
        defer { harness.remove() }
        try await harness.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            func status(host: String) throws -> Int? {
                let connection = try RawConnection(port: port)
                try connection.send("GET /v1/captures HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
                return connection.status(within: 10)
            }
            // DNS rebinding: the attacker's name resolved to 127.0.0.1.
            XCTAssertEqual(try status(host: "attacker.example:\(port)"), 421)
            XCTAssertEqual(try status(host: "attacker.example"), 421)
            XCTAssertEqual(try status(host: "localhost.attacker.example"), 421)
            for host in ["localhost:\(port)", "127.0.0.1:\(port)", "[::1]:\(port)", "LOCALHOST", "scans.local:\(port)"] {
                XCTAssertEqual(try status(host: host), 200, host)
            }
        }
    }

    func testAForeignPageCannotUploadDeleteOrRender() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        let upload = try MultipartBody.tumFrame()
        try await harness.test { client in
            var foreign = upload.headers
            foreign[.origin] = "http://attacker.example"
            let refused = try await client.execute(uri: "/v1/captures", method: .post, headers: foreign, body: upload.body)
            XCTAssertEqual(refused.status, .forbidden, String(buffer: refused.body))
            XCTAssertTrue(String(buffer: refused.body).contains("--allow-origin"))
            let listed = try await client.execute(uri: "/v1/captures", method: .get).json()
            XCTAssertEqual((listed["captures"] as? [Any])?.count, 0, "a refused upload was stored")

            // The server's own page (same origin) uploads; so does curl (no Origin).
            var own = upload.headers
            own[.origin] = "http://localhost"
            let created = try await client.execute(uri: "/v1/captures", method: .post, headers: own, body: upload.body)
            XCTAssertEqual(created.status, .created, String(buffer: created.body))
            let id = try XCTUnwrap(try created.json()["id"] as? String)

            let deleted = try await client.execute(
                uri: "/v1/captures/\(id)", method: .delete, headers: [.origin: "http://attacker.example"])
            XCTAssertEqual(deleted.status, .forbidden)
            let opaque = try await client.execute(uri: "/v1/captures/\(id)", method: .delete, headers: [.origin: "null"])
            XCTAssertEqual(opaque.status, .forbidden)

            // Another site's <img> or fetch, whatever its method; following a link is a navigation.
            let crossSite = HTTPField.Name("Sec-Fetch-Site")!
            let image = try await client.execute(
                uri: "/v1/captures/\(id)/preview.png?width=4096&height=4096", method: .get,
                headers: [crossSite: "cross-site", HTTPField.Name("Sec-Fetch-Mode")!: "no-cors"])
            XCTAssertEqual(image.status, .forbidden)
            let link = try await client.execute(
                uri: "/", method: .get, headers: [crossSite: "cross-site", HTTPField.Name("Sec-Fetch-Mode")!: "navigate"])
            XCTAssertEqual(link.status, .ok)
            let ownPage = try await client.execute(uri: "/v1/captures/\(id)", method: .get, headers: [crossSite: "same-origin"])
            XCTAssertEqual(ownPage.status, .ok)
            XCTAssertNil(ownPage.headers[.accessControlAllowOrigin], "CORS offered to no one")
        }
    }

    func testAnAllowedOriginGetsCORSAndMayUpload() async throws {
        let harness = try ServiceHarness { $0.allowedOrigins = ["https://scans.example"] }
        defer { harness.remove() }
        let upload = try MultipartBody.tumFrame()
        try await harness.test { client in
            let preflight = try await client.execute(
                uri: "/v1/captures", method: .options,
                headers: [
                    .origin: "https://scans.example", .accessControlRequestMethod: "POST",
                    .accessControlRequestHeaders: "content-type"
                ])
            XCTAssertEqual(preflight.status, .noContent)
            XCTAssertEqual(preflight.headers[.accessControlAllowOrigin], "https://scans.example")
            XCTAssertTrue(preflight.headers[.accessControlAllowMethods]?.contains("POST") ?? false)

            var headers = upload.headers
            headers[.origin] = "https://scans.example"
            headers[HTTPField.Name("Sec-Fetch-Site")!] = "cross-site"
            let created = try await client.execute(uri: "/v1/captures", method: .post, headers: headers, body: upload.body)
            XCTAssertEqual(created.status, .created, String(buffer: created.body))
            XCTAssertEqual(created.headers[.accessControlAllowOrigin], "https://scans.example")
            // Its problems carry the header too, or its script could not read why.
            let missing = try await client.execute(
                uri: "/v1/captures/0000000000000000000000000a", method: .get, headers: [.origin: "https://scans.example"])
            XCTAssertEqual(missing.status, .notFound)
            XCTAssertEqual(missing.headers[.accessControlAllowOrigin], "https://scans.example")

            let other = try await client.execute(
                uri: "/v1/captures", method: .options,
                headers: [.origin: "https://other.example", .accessControlRequestMethod: "POST"])
            XCTAssertNil(other.headers[.accessControlAllowOrigin])
        }
    }

    /// Behind a proxy that ends TLS (Docs/deploy.md's nginx), the server's own page is an https
    /// origin for the Host the proxy passes on: it may upload and open streams, and the links a
    /// stream's answer gives are wss:// and https:// for the client that came over TLS.
    func testTheOwnPageBehindATLSProxyIsTheServersOwn() async throws {
        let harness = try ServiceHarness { $0.allowedHosts = ["scans.example"] }
        defer { harness.remove() }
        try await harness.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            // As nginx passes a request on: the public Host, the page's https origin, the scheme.
            func proxied(_ method: String, _ path: String, origin: String, body: String = "") throws -> (Int?, String) {
                let connection = try RawConnection(port: port)
                try connection.send(
                    "\(method) \(path) HTTP/1.1\r\nHost: scans.example\r\nOrigin: \(origin)\r\nX-Forwarded-Proto: https\r\n"
                        + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
                let text = connection.receive(for: 10).text
                return (RawConnection.status(of: text), String(text[(text.range(of: "\r\n\r\n")?.upperBound ?? text.endIndex)...]))
            }
            let (status, body) = try proxied(
                "POST", "/v1/streams", origin: "https://scans.example", body: #"{"source": "synthetic", "fps": 1}"#)
            XCTAssertEqual(status, 201, body)
            let answer = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
            let id = try XCTUnwrap(answer["id"] as? String)
            XCTAssertEqual(answer["push_url"] as? String, "wss://scans.example/v1/streams/\(id)/push")
            XCTAssertEqual(answer["live_url"] as? String, "wss://scans.example/v1/streams/\(id)/live")
            XCTAssertEqual(answer["page"] as? String, "https://scans.example/live/\(id)")

            // Another https origin is still foreign, and so is the own name on another port.
            for origin in ["https://attacker.example", "https://scans.example:8443"] {
                XCTAssertEqual(try proxied("DELETE", "/v1/streams/\(id)", origin: origin).0, 403, origin)
            }
            XCTAssertEqual(try proxied("DELETE", "/v1/streams/\(id)", origin: "https://scans.example").0, 204)
        }
    }

    func testOriginsAreCheckedAtStart() {
        var configuration = ServiceConfiguration(port: 0, dataDirectory: "/nonexistent")
        configuration.allowedOrigins = ["scans.example"]
        XCTAssertThrowsError(try configuration.validate()) { XCTAssertTrue("\($0)".contains("--allow-origin"), "\($0)") }
        configuration.allowedOrigins = ["https://scans.example/page"]
        XCTAssertThrowsError(try configuration.validate())
        configuration.allowedOrigins = ["https://scans.example:8443"]
        XCTAssertNoThrow(try configuration.validate())
    }
}
