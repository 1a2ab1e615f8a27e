import CloudCore
import Foundation
import SharedTestData
import XCTest

@testable import CloudStreamClient

/// `--to` and the URLs the service answers with: what is taken, what is refused in one line, and
/// how a relative answer becomes the socket's absolute ws:// URL.
final class ServiceURLTests: XCTestCase {
    func testTheServiceAddressIsReadAndRelativeAnswersResolveAgainstIt() throws {
        let plain = try ServiceURL("http://127.0.0.1:8080")
        XCTAssertEqual(plain.hostHeader, "127.0.0.1:8080")
        XCTAssertEqual(plain.basePath, "")
        XCTAssertEqual(try plain.resolve("/v1/streams/ab/push", webSocket: true), "ws://127.0.0.1:8080/v1/streams/ab/push")
        XCTAssertEqual(try plain.resolve("/live/ab", webSocket: false), "http://127.0.0.1:8080/live/ab")
        XCTAssertEqual(
            try plain.resolve("wss://scans.example/v1/streams/ab/live", webSocket: true), "wss://scans.example/v1/streams/ab/live")
        XCTAssertEqual(try plain.resolve("https://scans.example/live/ab", webSocket: false), "https://scans.example/live/ab")

        // Behind a proxy's prefix, on IPv6, on the default port.
        let prefixed = try ServiceURL("http://[::1]/cloud/")
        XCTAssertEqual(prefixed.hostHeader, "[::1]:80")
        XCTAssertEqual(prefixed.basePath, "/cloud")
        XCTAssertEqual(try prefixed.resolve("v1/streams/ab/push", webSocket: true), "ws://[::1]:80/cloud/v1/streams/ab/push")
    }

    func testAddressesThatCannotBeUsedAreRefusedNamingThem() {
        for (text, detail) in [
            ("https://scans.example", "only http://"), ("127.0.0.1:8080", "e.g. http://127.0.0.1:8080"), ("http://", "no host"),
            ("http://h:8080/?x=1", "without a query"), ("not a url at all", "not a URL")
        ] {
            assertBadInput(naming: text, containing: detail) { try ServiceURL(text) }
        }
    }

    func testAnswersAreReadWithAContentLengthChunkedOrUntilTheEnd() throws {
        let url = try ServiceURL("http://127.0.0.1:1")
        func answer(_ text: String) throws -> HTTPPost.Response { try HTTPPost.parse(Data(text.utf8), url: url) }
        let sized = try answer("HTTP/1.1 201 Created\r\nContent-Length: 2\r\nX: y\r\n\r\n{}trailing")
        XCTAssertEqual(sized.status, 201)
        XCTAssertEqual(sized.body, Data("{}".utf8))
        let chunked = try answer("HTTP/1.1 401 Unauthorized\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"d\r\n4;x=1\r\n\":1}\r\n0\r\n\r\n")
        XCTAssertEqual(chunked.status, 401)
        XCTAssertEqual(chunked.body, Data("{\"d\":1}".utf8))
        XCTAssertEqual(try answer("HTTP/1.0 200 OK\r\n\r\nall of it").body, Data("all of it".utf8))
        for (broken, detail) in [
            ("", "no answer"), ("SSH-2.0-OpenSSH\r\n", "no end of headers"), ("FOO 200\r\n\r\n", "status line"),
            ("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n{}", "shorter than its Content-Length"),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "not hexadecimal"),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n9\r\n{}\r\n", "shorter than its size")
        ] {
            assertBadInput(naming: url.text, containing: detail) { try answer(broken) }
        }
    }

    func testTheRequestBodyIsTheStreamContract() throws {
        let k = CameraIntrinsics(fx: 525, fy: 524, cx: 319.5, cy: 239.5, referenceWidth: 640, referenceHeight: 480)
        let request = StreamRequest(
            intrinsics: k, depthScale: 5000,
            options: ["range": .string("0.3,4"), "filters": .strings(["voxel=0.01"]), "organized": .bool(true)])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        XCTAssertEqual(
            String(decoding: try encoder.encode(request), as: UTF8.self),
            #"{"filters":["voxel=0.01"],"organized":true,"push":{"depth_scale":5000,"intrinsics":{"height":480,"intrinsic_matrix":[525,0,0,0,524,0,319.5,239.5,1],"width":640}},"range":"0.3,4"}"#
        )
    }
}
