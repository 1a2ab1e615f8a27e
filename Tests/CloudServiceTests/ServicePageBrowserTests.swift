import CloudImages
import CloudService
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
        // The test's own client idles while chromium runs; the server must not close it.
        let harness = try ServiceHarness { $0.idleTimeoutSeconds = 600 }
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

    /// What users reach for on the page: a capture's name, tags and warnings on its card, and the
    /// latest jobs with their state and frames done of total, from the routes the page reads.
    func testThePageShowsNamesTagsWarningsAndJobsWithTheirProgressInHeadlessChromium() async throws {
        let chromium = try Chromium()
        // The test's own client idles while chromium runs; the server must not close it.
        let harness = try ServiceHarness { $0.idleTimeoutSeconds = 600 }
        defer { harness.remove() }
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: scratch) }
        var named = try MultipartBody.tumFrame()
        named.field("name", "desk <b>north</b>")
        named.field("tags", "office,tum")
        // A range that drops pixels: the capture's report warns how many.
        named.field("range", "0.5,2")
        let archive = try MultipartBody.redwoodBundle(in: scratch)
        let bodies = (named, archive)
        try await harness.test(.live) { client in
            let port = try XCTUnwrap(client.port, "the live harness has a port")
            let created = try await client.execute(uri: "/v1/captures", method: .post, headers: bodies.0.headers, body: bodies.0.body)
            XCTAssertEqual(created.status, .created, String(buffer: created.body))
            let capture = try created.json()
            let id = try XCTUnwrap(capture["id"] as? String)
            let warning = try XCTUnwrap((capture["warnings"] as? [String])?.first, "the range gives a warning")
            let accepted = try await client.execute(uri: "/v1/captures", method: .post, headers: bodies.1.headers, body: bodies.1.body)
            XCTAssertEqual(accepted.status, .accepted, String(buffer: accepted.body))
            let job = try XCTUnwrap(try accepted.json()["id"] as? String)
            // The event stream ends once the job has.
            _ = try await client.execute(uri: "/v1/jobs/\(job)/events", method: .get)

            let dom = try await chromium.run(["--dump-dom", "http://127.0.0.1:\(port)/"], scratch: scratch)
            let card = try XCTUnwrap(dom.range(of: "id=\"capture-\(id)\""), "the page does not list capture \(id)")
            let cardText = String(dom[card.upperBound...].prefix(4000))
            // The name as text, never as markup.
            XCTAssertTrue(cardText.contains("<h2 class=\"name\">desk &lt;b&gt;north&lt;/b&gt;</h2>"), cardText)
            XCTAssertTrue(cardText.contains("<div class=\"tags\"><span>office</span><span>tum</span></div>"), cardText)
            XCTAssertTrue(cardText.contains("<ul class=\"warnings\"><li>\(warning)</li></ul>"), cardText)
            XCTAssertTrue(warning.hasPrefix("range=0.5,2 dropped"), warning)

            let row = try XCTUnwrap(
                dom.range(of: "<li id=\"job-\(job)\"[^>]*>.*?</li>", options: .regularExpression), "the page lists no job \(job)")
            let rowText = String(dom[row])
            XCTAssertTrue(rowText.contains("data-state=\"succeeded\""), rowText)
            XCTAssertTrue(rowText.contains("succeeded · 5 of 5 frames"), rowText)
            XCTAssertTrue(
                rowText.contains("<progress max=\"5\" value=\"5\">") || rowText.contains("<progress value=\"5\" max=\"5\">"), rowText)
            // The job's capture is listed too.
            let polled = try await client.execute(uri: "/v1/jobs/\(job)", method: .get).json()
            let made = try XCTUnwrap((polled["capture"] as? String)?.split(separator: "/").last)
            XCTAssertNotNil(dom.range(of: "id=\"capture-\(made)\""), "the job's capture is not on the page")
        }
    }

    /// The page used as a person would, over the DevTools protocol: pick an archive, fill in a
    /// filter, a name and tags, press Upload; the page lists the job, follows it to the end and
    /// lists its capture, which the server stored with what the page sent.
    func testThePageUploadsAnArchiveWithFieldsAndFollowsItsJobInHeadlessChromium() async throws {
        let chromium = try Chromium()
        // The test's own client idles while the browser works; the server must not close it.
        let harness = try ServiceHarness { $0.idleTimeoutSeconds = 600 }
        defer { harness.remove() }
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let archive = scratch.appendingPathComponent("scan.tar")
        _ = try redwoodArchive(in: scratch)
        try await harness.test(.live) { client in
            let port = try XCTUnwrap(client.port, "the live harness has a port")
            let browser = try DevToolsPipe(chromium: chromium.path, profile: scratch.appendingPathComponent("devtools-profile"))
            try browser.open("http://127.0.0.1:\(port)/")
            // Loaded, and the listing fetched: the status line says how many captures there are.
            XCTAssertTrue(try browser.wait(until: "document.readyState === 'complete' && document.getElementById('status')?.textContent"))
            try browser.setFiles("#upload input[name=bundle]", [archive.path])
            try browser.evaluate(
                """
                (() => {
                  const form = document.getElementById('upload');
                  form.elements.voxel.value = '0.02';
                  form.elements.name.value = 'scan from the page';
                  form.elements.tags.value = 'redwood,page';
                  form.requestSubmit();
                })()
                """)
            let finished = try browser.wait(until: "document.querySelector('#jobs li[data-state=succeeded]')")
            let shown = try browser.evaluate(
                "document.getElementById('jobs-panel').outerHTML + ' ' + document.getElementById('status').textContent")
            XCTAssertTrue(finished, "the page shows no finished job: \(shown ?? "")")
            let row = try browser.evaluate("document.querySelector('#jobs li').textContent") as? String ?? ""
            XCTAssertTrue(row.contains("succeeded · 5 of 5 frames"), row)
            XCTAssertTrue(
                try browser.wait(
                    until: "[...document.querySelectorAll('.capture h2.name')].some(h => h.textContent === 'scan from the page')"),
                "the job's capture is not listed with its name")

            let tagged = try await client.execute(uri: "/v1/captures?tag=page", method: .get).json()
            let capture = try XCTUnwrap((tagged["captures"] as? [[String: Any]])?.first, "no capture tagged page")
            XCTAssertEqual(capture["name"] as? String, "scan from the page")
            XCTAssertEqual(capture["tags"] as? [String], ["redwood", "page"])
            XCTAssertEqual((capture["files"] as? [String: String])?["bundle"], "scan.tar")
            XCTAssertEqual(((capture["filters"] as? [[String: Any]])?.first)?["argument"] as? String, "voxel=0.02")
            XCTAssertEqual(capture["frames"] as? Int, 5)

            // A phone's portrait through the photo field, scaled by a known distance: the card
            // shows the capture's warning, which names the field, not the CLI's flag.
            try browser.setFiles("#upload input[name=photo]", [try sharedData("phone/iphonex-portrait-depth.jpg")])
            try browser.evaluate(
                """
                (() => {
                  const form = document.getElementById('upload');
                  form.elements.known_distance.value = '1512,2016=0.6';
                  form.elements.name.value = 'vase';
                  form.requestSubmit();
                })()
                """)
            let listed = try browser.wait(until: "[...document.querySelectorAll('.capture h2.name')].some(h => h.textContent === 'vase')")
            let status = try browser.evaluate("document.getElementById('status').textContent")
            XCTAssertTrue(listed, "the photo's capture is not listed: \(status ?? "")")
            let warnings =
                try browser.evaluate(
                    """
                    [...document.querySelectorAll('.capture')].find(c => c.querySelector('h2.name').textContent === 'vase')
                      .querySelector('ul.warnings').textContent
                    """) as? String ?? ""
            XCTAssertTrue(warnings.contains("lies 0.6 m away (known_distance)"), warnings)
        }
    }

    /// The preview <img> inside capture `id`'s card: its whole tag and its src (a path).
    static func previewImage(in dom: String, of id: String) -> (tag: String, source: String)? {
        guard let card = dom.range(of: "id=\"capture-\(id)\""),
            let tag = dom.range(of: "<img[^>]*>", options: .regularExpression, range: card.upperBound..<dom.endIndex)
        else { return nil }
        let text = String(dom[tag])
        // " src=", not the data-src the page also sets.
        guard let src = text.range(of: " src=\"/v1/captures/\(id)/preview\\.png\\?[^\"]*\"", options: .regularExpression) else {
            return nil
        }
        let source = text[src].dropFirst(" src=\"".count).dropLast().replacingOccurrences(of: "&amp;", with: "&")
        return (text, source)
    }
}

/// Debian's chromium, headless. Missing, the test fails and says how to install it.
struct Chromium {
    let path: String

    init() throws {
        let candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw ChromiumMissing(
                "chromium is not installed (looked for \(candidates.joined(separator: ", "))): run Tools/bootstrap, which installs Debian's chromium"
            )
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
        process.arguments =
            [
                "--headless", "--disable-gpu", "--no-sandbox", "--disable-dev-shm-usage", "--no-first-run",
                "--hide-scrollbars", "--user-data-dir=\(profile.path)", "--virtual-time-budget=10000"
            ] + arguments
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
            throw CocoaError(
                .executableLoad,
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "chromium \(arguments.joined(separator: " ")) exited with \(status): \(complaint.suffix(2000))"
                ])
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
        for i in stride(from: 0, to: rgb.count, by: 3)
        where rgb[i] != other.rgb[i] || rgb[i + 1] != other.rgb[i + 1] || rgb[i + 2] != other.rgb[i + 2] {
            count += 1
        }
        return count
    }
}
