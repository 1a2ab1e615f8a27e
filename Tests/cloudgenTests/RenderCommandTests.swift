import CloudCore
import CloudImages
import Foundation
import XCTest

/// `cloudgen render` and capture's pictures, end to end through the built executable.
final class RenderCommandTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try makeScratchDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    private func image(_ name: String) throws -> ColorImage {
        try ImageFile.read(path(name)).colorImage(origin: name)
    }

    /// A simulated room with a preview, then rendered again from the file: the same camera makes
    /// the same picture, and --json is one object that says what was drawn.
    func testCapturePreviewMatchesRenderOfTheFile() throws {
        let capture = try CLI.run(
            [
                "capture", "--source", "synthetic", "--ply", "scan.ply", "--preview", "scan.png",
                "--depth-image", "depth.png", "--json"
            ], in: dir)
        XCTAssertEqual(capture.status, 0, capture.stderr)
        let captureReport = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(capture.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(captureReport["images"] as? [String], ["depth.png", "scan.png"], "the pictures in the order they were written")
        let preview = try image("scan.png")
        XCTAssertEqual([preview.width, preview.height], [1280, 720])

        let render = try CLI.run(["render", "scan.ply", "--out", "again.png", "--json"], in: dir)
        XCTAssertEqual(render.status, 0, render.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(render.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["color"] as? String, "rgb")
        XCTAssertEqual(report["files"] as? [String], ["again.png"])
        let covered = try XCTUnwrap(report["coveredPixels"] as? Int)
        XCTAssertGreaterThan(covered, 1280 * 720 / 10, "the reset view shows the room large")
        XCTAssertEqual(try image("again.png"), preview, "the preview is the render of the written cloud")
    }

    /// A world-frame capture records its camera in the files, so `render` of either file shows
    /// what the capture's preview showed: the camera's view, upright in the room (z up), not the
    /// camera-frame default (up -y) that a file without a viewpoint gets.
    func testWorldFrameFilesRenderFromTheirRecordedCamera() throws {
        let capture = try CLI.run(
            [
                "capture", "--source", "synthetic:noise=0", "--frame", "world", "--ply", "room.ply",
                "--pcd", "room.pcd", "--preview", "preview.png"
            ], in: dir)
        XCTAssertEqual(capture.status, 0, capture.stderr)
        let preview = try image("preview.png")
        for file in ["room.ply", "room.pcd"] {
            let render = try CLI.run(["render", file, "--out", "\(file).png", "--json"], in: dir)
            XCTAssertEqual(render.status, 0, render.stderr)
            let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(render.stdout.utf8)) as? [String: Any])
            XCTAssertEqual((report["camera"] as? [String: Any])?["up"] as? String, "+z", file)
            XCTAssertEqual(try image("\(file).png"), preview, "\(file): the render is the capture's preview")
        }
        // --up decides when given: the camera-frame default, which looks at the room sideways.
        XCTAssertEqual(try CLI.run(["render", "room.ply", "--out", "sideways.png", "--up", "-y"], in: dir).status, 0)
        XCTAssertNotEqual(try image("sideways.png"), preview)
    }

    /// The report accounts for the whole process: its stages (start-up and framing among them)
    /// follow one another on one clock, so they add up to its total, in --json and in the text.
    func testReportNamesEveryStageOfTheProcess() throws {
        XCTAssertEqual(try CLI.run(["capture", "--source", "synthetic", "--ply", "scan.ply"], in: dir).status, 0)
        let run = try CLI.run(["render", "scan.ply", "--out", "scan.png", "--json"], in: dir)
        XCTAssertEqual(run.status, 0, run.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let stages = try XCTUnwrap(report["milliseconds"] as? [String: Double])
        XCTAssertEqual(Set(stages.keys), ["startup", "read", "bounds", "framing", "rasterise", "shade", "encode", "write"])
        XCTAssert(stages.values.allSatisfy { $0 >= 0 }, "\(stages)")
        let total = try XCTUnwrap(report["totalMilliseconds"] as? Double)
        // Each figure is rounded to the microsecond: eight of them stay within 0.01 ms of the total.
        XCTAssertLessThanOrEqual(stages.values.reduce(0, +), total + 0.01, "the stages overlap: \(stages), total \(total)")
        XCTAssertGreaterThanOrEqual(stages.values.reduce(0, +), total - 0.01, "time the stages leave out: \(stages), total \(total)")

        let text = try CLI.run(["render", "scan.ply", "--out", "again.png"], in: dir)
        XCTAssertEqual(text.status, 0, text.stderr)
        for stage in ["start-up", "read", "bounds", "framing", "rasterise", "shade", "encode", "write", "total"] {
            XCTAssert(text.stdout.contains("\(stage) "), "the text report names \(stage): \(text.stdout)")
        }
    }

    func testTurntableWritesFramesAndAnAnimatedPNG() throws {
        XCTAssertEqual(try CLI.run(["capture", "--source", "synthetic", "--ply", "scan.ply"], in: dir).status, 0)
        let run = try CLI.run(
            [
                "render", "scan.ply", "--out", "turn.png", "--turntable", "4", "--size", "160x120",
                "--elevation", "-20", "--up", "-y", "--color", "depth"
            ], in: dir)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(filesIn(dir), ["scan.ply", "turn.png", "turn_000.png", "turn_001.png", "turn_002.png", "turn_003.png"])
        let chunks = try AnimatedPNG.chunks(of: Array(try Data(contentsOf: dir.appendingPathComponent("turn.png"))), origin: "turn.png")
        XCTAssertEqual(chunks.filter { $0.type == "fcTL" }.count, 4)
        let frames = try (0..<4).map { try image("turn_00\($0).png") }
        XCTAssertNotEqual(frames[0], frames[2], "the frames are different views")
        XCTAssertEqual(try image("turn.png"), frames[0], "a plain PNG reader sees the first frame")
    }

    /// Bad requests exit 2 with one line naming the flag, and leave no file behind.
    func testInvalidParametersExit2() throws {
        XCTAssertEqual(try CLI.run(["capture", "--source", "synthetic", "--ply", "scan.ply"], in: dir).status, 0)
        let cases: [([String], String)] = [
            (["--size", "0x720"], "--size"), (["--size", "16385x10"], "--size"), (["--size", "big"], "--size"),
            (["--azimuth", "nan"], "--azimuth"), (["--azimuth", "inf"], "--azimuth"), (["--elevation", "95"], "--elevation"),
            (["--fov", "0"], "--fov"), (["--fov", "-5"], "--fov"), (["--distance", "-1"], "--distance"),
            (["--point-size", "0"], "--point-size"),
            (["--color", "plasma"], "--color"), (["--background", "#12"], "--background"), (["--up", "w"], "--up"),
            (["--turntable", "1"], "--turntable"), (["--color", "normal"], "--color normal")
        ]
        for (flags, named) in cases {
            let run = try CLI.run(["render", "scan.ply", "--out", "bad.png"] + flags, in: dir)
            XCTAssertEqual(run.status, 2, "\(flags): \(run.stderr)")
            XCTAssertEqual(run.stderrLines.count, 1, "\(flags): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(named), "\(flags): \(run.stderr)")
        }
        XCTAssertEqual(filesIn(dir), ["scan.ply"])
    }

    /// An empty cloud is an error unless --allow-empty asks for a frame of background.
    func testEmptyCloudNeedsAllowEmpty() throws {
        let empty = "ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\nproperty float y\nproperty float z\nend_header\n"
        try empty.write(toFile: path("empty.ply"), atomically: true, encoding: .utf8)
        let refused = try CLI.run(["render", "empty.ply", "--out", "e.png"], in: dir)
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--allow-empty"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("e.png")))
        let allowed = try CLI.run(
            ["render", "empty.ply", "--out", "e.png", "--allow-empty", "--size", "8x4", "--background", "white"], in: dir)
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        XCTAssertEqual(try image("e.png").rgb, [UInt8](repeating: 255, count: 8 * 4 * 3))
    }

    /// The depth image of the simulated room: the scale bar below it, the nearest depth dark red,
    /// and with blend weight 0 exactly the color image, sampled at each (enlarged) depth pixel.
    func testCaptureDepthImageAndBlend() throws {
        let run = try CLI.run(["capture", "--source", "synthetic:noise=0", "--depth-image", "depth.png", "--rgbd", "frames"], in: dir)
        XCTAssertEqual(run.status, 0, run.stderr)
        let depth = try image("depth.png")
        XCTAssertEqual(depth.width, 768, "256 wide, enlarged 3 times")
        XCTAssertGreaterThan(depth.height, 576, "the scale bar adds a band below")
        let map = try ImageFile.read(path("frames/depth/000000.png")).depthMap(unitsPerMetre: 1000, origin: "depth")
        let color = try image("frames/color/000000.png")
        let factor = depth.width / map.width
        func pixel(_ picture: ColorImage, _ x: Int, _ y: Int) -> [UInt8] {
            let i = 3 * (y * picture.width + x)
            return Array(picture.rgb[i..<(i + 3)])
        }
        let valid = map.metres.indices.filter { map.metres[$0] > 0 }
        let nearest = try XCTUnwrap(valid.min { map.metres[$0] < map.metres[$1] })
        XCTAssertEqual(pixel(depth, nearest % map.width * factor, nearest / map.width * factor), [128, 0, 0], "nearest: dark red")

        let blend = try CLI.run(["capture", "--source", "synthetic:noise=0", "--depth-image", "blend.png", "--depth-blend", "0"], in: dir)
        XCTAssertEqual(blend.status, 0, blend.stderr)
        let blended = try image("blend.png")
        XCTAssertEqual([blended.width, blended.height], [depth.width, depth.height])
        var mismatches = 0
        for y in 0..<(map.height * factor) {
            for x in 0..<depth.width {
                let (dx, dy) = (x / factor, y / factor)
                let expected = pixel(color, dx * color.width / map.width, dy * color.height / map.height)
                if pixel(blended, x, y) != expected { mismatches += 1 }
            }
        }
        XCTAssertEqual(mismatches, 0, "weight 0 shows the color image alone")
        for flags in [["--depth-blend", "1.5"], ["--depth-blend", "0.5"]] {
            let bad = try CLI.run(
                ["capture", "--source", "synthetic"] + (flags[1] == "0.5" ? [] : ["--depth-image", "x.png"]) + flags, in: dir)
            XCTAssertEqual(bad.status, 2, "\(flags): \(bad.stderr)")
            XCTAssertTrue(bad.stderr.contains("--depth-blend"), bad.stderr)
        }
    }
}
