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

/// A capture in the 3D view: the points route's message against the CLI's cloud of the same
/// frame, and the page in a real browser against the preview `cloudgen render` draws.
final class CaptureViewTests: XCTestCase {
    /// The header as a client reads it (snake_case, as the route documents it).
    struct Header: Decodable {
        struct Camera: Decodable {
            var target: [Float]
            var distance: Float
            var azimuth: Float
            var fieldOfView: Float
            var up: String
            var width: Int
            var height: Int
        }

        var capture: String
        var points: Int
        var total: Int
        var origin: [Float]
        var scale: Float
        var camera: Camera
        var pointSize: Int
    }

    static func unpack(_ body: ByteBuffer) throws -> (Header, positions: [Int16], colors: [UInt8]) {
        let (header, payloads) = try StreamMessage.decode(Data(buffer: body), origin: "points", as: Header.self) {
            [6 * $0.points, 3 * $0.points]
        }
        let positions = payloads[0].withUnsafeBytes { raw in
            (0..<3 * header.points).map { Int16(littleEndian: raw.loadUnaligned(fromByteOffset: 2 * $0, as: Int16.self)) }
        }
        return (header, positions, [UInt8](payloads[1]))
    }

    func testThePointsAreTheCLIsCloudCutToTheBudgetWithinOneStep() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        let cli = try CLICapture.tumFrame()
        let finite = (0..<cli.count).filter { i in (0..<3).allSatisfy { cli.positions[3 * i + $0].isFinite } }
        let cliColors = try XCTUnwrap(cli.colors)
        try await harness.test { client in
            let upload = try MultipartBody.tumFrame()
            let created = try await client.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body)
            XCTAssertEqual(created.status, .created, String(buffer: created.body))
            let id = try XCTUnwrap(try created.json()["id"] as? String)

            let answer = try await client.execute(uri: "/v1/captures/\(id)/points?points=20000&width=320&height=240", method: .get)
            XCTAssertEqual(answer.status, .ok, String(buffer: answer.body))
            XCTAssertEqual(answer.headers[.contentType], "application/octet-stream")
            let (header, positions, colors) = try Self.unpack(answer.body)
            XCTAssertEqual(header.capture, id)
            XCTAssertEqual(header.total, finite.count)
            XCTAssertEqual(header.points, 20000)
            XCTAssertEqual(header.camera.up, "-y", "a camera-frame cloud is upright with y down")
            XCTAssertEqual([header.camera.width, header.camera.height], [320, 240])
            var worst: Float = 0
            for j in 0..<header.points {
                let i = finite[j * finite.count / header.points]
                for axis in 0..<3 {
                    let unpacked = header.origin[axis] + header.scale * Float(positions[3 * j + axis])
                    worst = max(worst, abs(unpacked - cli.positions[3 * i + axis]))
                }
                XCTAssertEqual(Array(colors[3 * j..<3 * j + 3]), Array(cliColors[3 * i..<3 * i + 3]), "point \(j)")
            }
            XCTAssertLessThanOrEqual(worst, header.scale * 0.5 + 1e-6)

            // Made once per budget and size: the same bytes again, and 304 for the ETag.
            let etag = try XCTUnwrap(answer.headers[.eTag])
            let unchanged = try await client.execute(
                uri: "/v1/captures/\(id)/points?points=20000&width=320&height=240", method: .get, headers: [.ifNoneMatch: etag])
            XCTAssertEqual(unchanged.status, .notModified)

            for (query, field) in [("points=0", "points"), ("points=2000001", "points"), ("width=8", "width"), ("zoom=2", "zoom")] {
                let refused = try await client.execute(uri: "/v1/captures/\(id)/points?\(query)", method: .get)
                XCTAssertEqual(refused.status, .badRequest, query)
                XCTAssertEqual(try refused.json()["field"] as? String, field, query)
            }
            let missing = try await client.execute(uri: "/v1/captures/0000000000000000000000000a/points", method: .get)
            XCTAssertEqual(missing.status, .notFound)
            let page = try await client.execute(uri: "/view/\(id)", method: .get)
            XCTAssertEqual(page.status, .ok)
            XCTAssertTrue(String(buffer: page.body).contains("webgl2"))
        }
    }

    /// The page draws what the preview draws: the simulated camera's frame from the same camera,
    /// at the same size and point size, covers the same pixels; a drag turns it.
    func testTheViewShowsThePreviewsPictureAndADragTurnsItInHeadlessChromium() async throws {
        let chromium = try Chromium()
        let harness = try ServiceHarness { $0.idleTimeoutSeconds = 600 }
        defer { harness.remove() }
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: scratch) }
        try await harness.test(.live) { client in
            let port = try XCTUnwrap(client.port, "the live harness has a port")
            // 160x120 depth: every point fits the page's first budget, as every point is in the preview.
            let order = #"{"source": "synthetic:depth=160x120,color=160x120"}"#
            let created = try await client.execute(
                uri: "/v1/captures", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: order))
            XCTAssertEqual(created.status, .created, String(buffer: created.body))
            let id = try XCTUnwrap(try created.json()["id"] as? String)

            let browser = try DevToolsPipe(chromium: chromium.path, profile: scratch.appendingPathComponent("devtools-profile"))
            try browser.open("about:blank")
            try browser.setViewport(width: 800, height: 640)
            try browser.navigate("http://127.0.0.1:\(port)/view/\(id)")
            let ready = try browser.wait(until: "document.body?.dataset.ready === '1' && Number(document.body.dataset.drawn) > 0")
            let status = try browser.evaluate("document.getElementById('status').textContent") as? String ?? ""
            XCTAssertTrue(ready, "the view never drew its cloud: \(status)")
            let box = try XCTUnwrap(
                try browser.evaluate(
                    "(() => { const r = document.getElementById('view').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()"
                )
                    as? [Double])
            let (width, height) = (Int(box[2]), Int(box[3]))
            XCTAssertGreaterThan(height, 400)
            let info = try browser.evaluate("document.getElementById('info').textContent") as? String ?? ""
            // "N of N points": the whole frame within the first budget, as the preview draws it.
            let counts = info.replacingOccurrences(of: " points", with: "").components(separatedBy: " of ")
            XCTAssertEqual(counts.count, 2, info)
            XCTAssertEqual(counts.first, counts.last, info)

            let preview = try await client.execute(uri: "/v1/captures/\(id)/preview.png?width=\(width)&height=\(height)", method: .get)
            XCTAssertEqual(preview.status, .ok)
            let drawn = try Blocks(ImageFile.decode([UInt8](Data(buffer: preview.body)), origin: "preview"))
            let shown = try Blocks(
                ImageFile.decode([UInt8](try browser.screenshot(x: box[0], y: box[1], width: box[2], height: box[3])), origin: "view"))
            XCTAssertGreaterThan(drawn.covered.filter { $0 }.count, drawn.covered.count / 10, "the preview shows the frame")
            // Points are squares a pixel either side of the preview's: compare 8x8 blocks, each
            // covered when most of its pixels show a point, and the mean color of each covered in both.
            // 99 % of the blocks and a color difference under 1 of 255 here.
            XCTAssertGreaterThan(shown.agreement(with: drawn), 0.95, "the view and the preview cover different parts of the picture")
            XCTAssertLessThan(shown.colorDifference(from: drawn), 6, "the view and the preview show other colors")

            let before = try browser.evaluate("Number(document.body.dataset.drawn)") as? Double ?? 0
            try browser.drag(from: (box[0] + box[2] / 2, box[1] + box[3] / 2), to: (box[0] + box[2] / 2 + 120, box[1] + box[3] / 2))
            XCTAssertTrue(try browser.wait(until: "Number(document.body.dataset.drawn) > \(before)"), "the drag drew nothing new")
            let turned = try Blocks(
                ImageFile.decode([UInt8](try browser.screenshot(x: box[0], y: box[1], width: box[2], height: box[3])), origin: "turned"))
            XCTAssertGreaterThan(turned.covered.filter { $0 }.count, turned.covered.count / 20, "the turned view still shows the frame")
            // A 120-pixel drag turns the orbit 36 degrees: half the blocks change (0.50 here), where
            // the view and the preview agree on 99 %.
            XCTAssertLessThan(turned.agreement(with: shown), 0.8, "the drag did not turn the view")
        }
    }

}

/// A picture in 8x8 blocks: whether most of a block's pixels show a point (they are not the
/// background `cloudgen render` and the page share, 24 26 30), and those pixels' mean color.
struct Blocks {
    static let side = 8
    var covered: [Bool] = []
    var colors: [SIMD3<Double>] = []

    init(_ image: DecodedImage) throws {
        guard case .uint8(let samples) = image.samples, image.channels >= 3 else { throw PageError("not an 8-bit RGB image") }
        let background = SIMD3<Double>(24, 26, 30)
        for by in 0..<image.height / Self.side {
            for bx in 0..<image.width / Self.side {
                var (count, sum) = (0, SIMD3<Double>.zero)
                for y in by * Self.side..<(by + 1) * Self.side {
                    for x in bx * Self.side..<(bx + 1) * Self.side {
                        let i = (y * image.width + x) * image.channels
                        let pixel = SIMD3(Double(samples[i]), Double(samples[i + 1]), Double(samples[i + 2]))
                        let difference = pixel - background
                        if abs(difference.x) + abs(difference.y) + abs(difference.z) > 6 {
                            count += 1
                            sum += pixel
                        }
                    }
                }
                covered.append(count * 2 > Self.side * Self.side)
                colors.append(count > 0 ? sum / Double(count) : background)
            }
        }
    }

    /// Blocks covered in both over blocks covered in either.
    func agreement(with other: Blocks) -> Double {
        let both = zip(covered, other.covered).filter { $0 && $1 }.count
        let either = zip(covered, other.covered).filter { $0 || $1 }.count
        return either == 0 ? 1 : Double(both) / Double(either)
    }

    /// The mean difference of the blocks covered in both, per channel (0...255).
    func colorDifference(from other: Blocks) -> Double {
        var (total, count) = (0.0, 0)
        for i in covered.indices where covered[i] && other.covered[i] {
            let d = colors[i] - other.colors[i]
            total += (abs(d.x) + abs(d.y) + abs(d.z)) / 3
            count += 1
        }
        return count == 0 ? 255 : total / Double(count)
    }
}
