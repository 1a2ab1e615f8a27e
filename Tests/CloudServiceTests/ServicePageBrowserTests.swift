import CloudIO
import Foundation
import Hummingbird
import HummingbirdTesting
import SharedTestData
import XCTest

/// GET / in a real browser: Debian's chromium, headless, against the service live on an
/// ephemeral port. The page's script must have run (the captures come from /v1/captures), each
/// capture must show a preview the browser fetched from the preview route, and the screenshot
/// must show them (it differs from the page without captures by the previews' pixels).
final class ServicePageBrowserTests: XCTestCase {
    func testThePageListsTheUploadedCapturesWithTheirPreviewsInHeadlessChromium() async throws {
        let chromium = try Chromium()
        let harness = try ServiceHarness()
        defer { harness.remove() }
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: scratch) }
        try await harness.test(.live) { client in
            let port = try XCTUnwrap(client.port, "the live harness has a port")
            let page = "http://127.0.0.1:\(port)/"
            let emptyShot = scratch.appendingPathComponent("empty.png").path
            try await chromium.run(["--screenshot=\(emptyShot)", "--window-size=1280,900", page], scratch: scratch)

            let upload = try MultipartBody.tumFrame()
            var ids: [String] = []
            for _ in 0..<2 {
                let created = try await client.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body)
                XCTAssertEqual(created.status, .created, String(buffer: created.body))
                ids.append(try XCTUnwrap(try created.json()["id"] as? String))
            }

            let dom = try await chromium.run(["--dump-dom", page], scratch: scratch)
            XCTAssertTrue(dom.contains("</html>"), "chromium printed no DOM: \(dom.prefix(300))")
            var previous: String.Index?
            for id in ids.reversed() {
                // Newest first: the second upload's card comes before the first's.
                let card = try XCTUnwrap(dom.range(of: "id=\"capture-\(id)\""), "the page does not list capture \(id)")
                if let previous { XCTAssertLessThan(previous, card.lowerBound, "captures are not newest first") }
                previous = card.lowerBound
                let image = try XCTUnwrap(Self.previewImage(in: dom, of: id), "capture \(id) has no preview <img>")
                XCTAssertTrue(image.tag.contains("class=\"preview loaded\""), "the browser did not load \(id)'s preview: \(image.tag)")
                // What the browser showed is what the preview route gives.
                let served = try await client.execute(uri: image.source, method: .get)
                XCTAssertEqual(served.status, .ok, image.source)
                XCTAssertEqual(served.headers[.contentType], "image/png")
            }

            let shot = scratch.appendingPathComponent("captures.png").path
            try await chromium.run(["--screenshot=\(shot)", "--window-size=1280,900", page], scratch: scratch)
            let empty = try ScreenshotPixels(emptyShot)
            let full = try ScreenshotPixels(shot)
            XCTAssertEqual(full.width, 1280)
            XCTAssertEqual(full.height, 900)
            // Two 240x180 thumbnails of a real scene: tens of thousands of pixels that the empty
            // page does not have, in far more colors than the page's flat UI and text.
            XCTAssertGreaterThan(full.pixelsDiffering(from: empty), 2 * 240 * 180 / 2, "the screenshot shows no previews")
            XCTAssertGreaterThan(full.distinctColors, empty.distinctColors + 1000, "the previews add no picture to the page")
        }
    }

    /// The preview <img> inside capture `id`'s card: its whole tag and its src (a path).
    static func previewImage(in dom: String, of id: String) -> (tag: String, source: String)? {
        guard let card = dom.range(of: "id=\"capture-\(id)\""),
              let tag = dom.range(of: "<img[^>]*>", options: .regularExpression, range: card.upperBound..<dom.endIndex) else { return nil }
        let text = String(dom[tag])
        // " src=", not the data-src the page also sets.
        guard let src = text.range(of: " src=\"/v1/captures/\(id)/preview\\.png\\?[^\"]*\"", options: .regularExpression) else { return nil }
        let source = text[src].dropFirst(" src=\"".count).dropLast().replacingOccurrences(of: "&amp;", with: "&")
        return (text, source)
    }
}

/// Debian's chromium, headless. Missing, the test fails and says how to install it.
private struct Chromium {
    let path: String

    init() throws {
        let candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw ChromiumMissing("chromium is not installed (looked for \(candidates.joined(separator: ", "))): run Tools/bootstrap, which installs Debian's chromium")
        }
        path = found
    }

    /// Runs chromium headless with `arguments` and returns what it printed on stdout. Scripts get
    /// 10 s of virtual time (the page's fetches complete within it); a run over 120 s fails.
    @discardableResult
    func run(_ arguments: [String], scratch: URL) async throws -> String {
        let profile = scratch.appendingPathComponent("profile-\(UUID().uuidString)")
        let output = scratch.appendingPathComponent("stdout-\(UUID().uuidString)")
        let errors = scratch.appendingPathComponent("stderr-\(UUID().uuidString)")
        for file in [output, errors] {
            guard FileManager.default.createFile(atPath: file.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["--headless", "--disable-gpu", "--no-sandbox", "--disable-dev-shm-usage", "--no-first-run",
                             "--hide-scrollbars", "--user-data-dir=\(profile.path)", "--virtual-time-budget=10000"] + arguments
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
            let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
            DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
        }
        let printed = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        guard status == 0 else {
            let complaint = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "chromium \(arguments.joined(separator: " ")) exited with \(status): \(complaint.suffix(2000))"])
        }
        return printed
    }
}

/// Thrown (a failure, never a skip) when chromium is missing: the project installs it.
private struct ChromiumMissing: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A screenshot's RGB pixels.
private struct ScreenshotPixels {
    let width: Int
    let height: Int
    let rgb: [UInt8]

    init(_ path: String) throws {
        let image = try ImageFile.read(path)
        guard case .uint8(let samples) = image.samples, image.channels >= 3 else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "\(path): not an 8-bit RGB(A) screenshot"])
        }
        width = image.width
        height = image.height
        var rgb: [UInt8] = []
        rgb.reserveCapacity(width * height * 3)
        for i in stride(from: 0, to: samples.count, by: image.channels) { rgb += samples[i..<i + 3] }
        self.rgb = rgb
    }

    var distinctColors: Int {
        var seen = Set<UInt32>()
        for i in stride(from: 0, to: rgb.count, by: 3) {
            seen.insert(UInt32(rgb[i]) << 16 | UInt32(rgb[i + 1]) << 8 | UInt32(rgb[i + 2]))
        }
        return seen.count
    }

    func pixelsDiffering(from other: ScreenshotPixels) -> Int {
        guard other.rgb.count == rgb.count else { return rgb.count / 3 }
        var count = 0
        for i in stride(from: 0, to: rgb.count, by: 3) where rgb[i] != other.rgb[i] || rgb[i + 1] != other.rgb[i + 1] || rgb[i + 2] != other.rgb[i + 2] {
            count += 1
        }
        return count
    }
}
