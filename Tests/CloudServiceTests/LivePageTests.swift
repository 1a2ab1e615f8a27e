import CloudCore
import CloudImages
import CloudService
import CloudStream
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import SharedTestData
import XCTest

/// A simulated stream's page in a real browser: the 3D view against the preview of a capture of
/// the same frame, the 2D views against the capture's depth picture, and an orbit by the mouse.
final class LivePageTests: XCTestCase {
    func testTheLivePageShowsTheFrameIn2DAnd3DAndADragTurnsIt() async throws {
        let chromium = try Chromium()
        let harness = try ServiceHarness { $0.idleTimeoutSeconds = 600 }
        defer { harness.remove() }
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: scratch) }
        // The simulated camera without a path gives one frame, which the stream replays.
        let source = "synthetic:depth=160x120,color=160x120"
        try await harness.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            let json: HTTPFields = [.contentType: "application/json"]
            let stream = try await client.execute(
                uri: "/v1/streams", method: .post, headers: json, body: ByteBuffer(string: #"{"source": "\#(source)", "fps": 5}"#))
            XCTAssertEqual(stream.status, .created, String(buffer: stream.body))
            let streamID = try XCTUnwrap(try stream.json()["id"] as? String)
            let capture = try await client.execute(
                uri: "/v1/captures", method: .post, headers: json, body: ByteBuffer(string: #"{"source": "\#(source)"}"#))
            let captureID = try XCTUnwrap(try capture.json()["id"] as? String)

            let browser = try DevToolsPipe(chromium: chromium.path, profile: scratch.appendingPathComponent("devtools-profile"))
            try browser.open("about:blank")
            try browser.setViewport(width: 800, height: 900)
            try browser.navigate("http://127.0.0.1:\(port)/live/\(streamID)")
            let ready = try browser.wait(
                until:
                    "document.body?.dataset.ready === '1' && Number(document.body.dataset.drawn) > 0 && document.getElementById('depth').dataset.shown && document.getElementById('color').dataset.shown"
            )
            let status = try browser.evaluate("document.getElementById('status').textContent") as? String ?? ""
            XCTAssertTrue(ready, "the page never showed a frame: \(status)")
            let stats = try browser.evaluate("document.getElementById('stats').textContent") as? String ?? ""
            XCTAssertTrue(stats.contains("points"), stats)
            XCTAssertTrue(try browser.wait(until: "Number(document.body.dataset.latency) >= 0"), "no latency shown: \(stats)")

            // The 2D views: the depth picture as the capture routes draw it, and the color image.
            let depth = try browser.evaluate("document.getElementById('depth').dataset.shown") as? String
            let captured = try await client.execute(uri: "/v1/captures/\(captureID)/depth.png", method: .get)
            let picture = try ImageFile.decode([UInt8](Data(buffer: captured.body)), origin: "depth.png")
            XCTAssertEqual(depth, "\(picture.width)x\(picture.height)", "the page's depth is the capture's depth picture")
            let color = try browser.evaluate("document.getElementById('color').dataset.shown") as? String
            XCTAssertEqual(color, "160x120")

            // The 3D view against the preview of the same frame at the canvas's size.
            let box = try XCTUnwrap(
                try browser.evaluate(
                    "(() => { const r = document.getElementById('view').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()"
                ) as? [Double])
            let (width, height) = (Int(box[2]), Int(box[3]))
            XCTAssertGreaterThan(height, 300)
            let preview = try await client.execute(
                uri: "/v1/captures/\(captureID)/preview.png?width=\(width)&height=\(height)", method: .get)
            XCTAssertEqual(preview.status, .ok)
            let drawn = try Blocks(ImageFile.decode([UInt8](Data(buffer: preview.body)), origin: "preview"))
            let shown = try Blocks(
                ImageFile.decode([UInt8](try browser.screenshot(x: box[0], y: box[1], width: box[2], height: box[3])), origin: "view"))
            XCTAssertGreaterThan(drawn.covered.filter { $0 }.count, drawn.covered.count / 10, "the preview shows the frame")
            XCTAssertGreaterThan(shown.agreement(with: drawn), 0.9, "the live view and the preview cover different parts of the picture")
            XCTAssertLessThan(shown.colorDifference(from: drawn), 8, "the live view and the preview show other colors")

            // An orbit by the mouse changes the view.
            let before = try browser.evaluate("Number(document.body.dataset.drawn)") as? Double ?? 0
            try browser.drag(from: (box[0] + box[2] / 2, box[1] + box[3] / 2), to: (box[0] + box[2] / 2 + 120, box[1] + box[3] / 2))
            XCTAssertTrue(try browser.wait(until: "Number(document.body.dataset.drawn) > \(before)"), "the drag drew nothing new")
            let turned = try Blocks(
                ImageFile.decode([UInt8](try browser.screenshot(x: box[0], y: box[1], width: box[2], height: box[3])), origin: "turned"))
            XCTAssertLessThan(turned.agreement(with: shown), 0.8, "the drag did not turn the view")
        }
    }
}
