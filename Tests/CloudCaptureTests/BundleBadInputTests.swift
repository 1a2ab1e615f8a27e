import CloudCapture
import CloudCore
import Foundation
import SharedTestData
import XCTest

/// Every way a bundle can be wrong is bad input naming the file (manifest.json or the frame
/// file) and the problem, found when the bundle is opened, before any frame is delivered.
final class BundleBadInputTests: XCTestCase {
    private var dir: URL!

    /// Two small frames, so that a fault in the second proves opening checks every frame.
    override func setUpWithError() throws {
        dir = try temporaryDirectory(self).appendingPathComponent("bundle")
        var frame = try syntheticCamera("synthetic:depth=16x12,color=16x12").renderFrame()
        let first = frame
        frame.timestamp = 1.0 / 30
        try writeBundle([first, frame], to: dir)
        XCTAssertEqual(try BundleSource(directory: dir.path).frameCount, 2)
    }

    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// Opening refuses the bundle with bad input whose one-line message starts with `file`'s path.
    private func assertRefused(naming file: String, _ fragment: String, line: UInt = #line) {
        XCTAssertThrowsError(try BundleSource(directory: dir.path), line: line) { error in
            guard let e = error as? CloudError else { return XCTFail("\(error) is not a CloudError", line: line) }
            XCTAssertEqual(e.kind, .badInput, e.message, line: line)
            XCTAssertEqual(e.exitStatus, 2, line: line)
            XCTAssertTrue(e.message.hasPrefix(path(file) + ": "), "'\(e.message)' does not start with \(file)", line: line)
            XCTAssertTrue(e.message.contains(fragment), "'\(e.message)' lacks '\(fragment)'", line: line)
            XCTAssertFalse(e.message.contains("\n"), "not one line: \(e.message)", line: line)
        }
    }

    private func edit(frame: Int = 0, _ key: [String], _ value: Any?) throws {
        try editManifest(dir, frame: frame) { setJSON(&$0, key, value) }
    }

    func testAMissingOrUnreadableManifest() throws {
        try Data("{\"frames\": [".utf8).write(to: dir.appendingPathComponent("manifest.json"))
        assertRefused(naming: "manifest.json", "not valid JSON (Unexpected end of file during JSON parse.)")
        try Data("{\"format\": \"cloudgen-capture-bundle\", \"version\": 2, \"frames\": []}".utf8)
            .write(to: dir.appendingPathComponent("manifest.json"))
        assertRefused(naming: "manifest.json", "version 2 is not supported (this build reads version 1)")
        try Data("{\"format\": \"other\", \"version\": 1, \"frames\": []}".utf8).write(to: dir.appendingPathComponent("manifest.json"))
        assertRefused(naming: "manifest.json", "format is 'other', expected 'cloudgen-capture-bundle'")
        try Data("{\"format\": \"cloudgen-capture-bundle\", \"version\": 1, \"frames\": []}".utf8)
            .write(to: dir.appendingPathComponent("manifest.json"))
        assertRefused(naming: "manifest.json", "the bundle has no frames")
        try FileManager.default.removeItem(at: dir.appendingPathComponent("manifest.json"))
        assertRefused(naming: "manifest.json", "no such file (the bundle's manifest)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("manifest.json"), withIntermediateDirectories: false)
        assertRefused(naming: "manifest.json", "is a folder, not a file (the bundle's manifest)")

        XCTAssertThrowsError(try SourceSpec(parsing: "bundle:\(path("nowhere"))").open()) { error in
            XCTAssertEqual("\(error)", "bundle:\(self.path("nowhere")): no such directory")
        }
    }

    func testMissingAndMistypedFieldsAreNamedByTheirPath() throws {
        try edit(frame: 1, ["depth", "width"], nil)
        assertRefused(naming: "manifest.json", "frames[1].depth.width is missing")
        try edit(frame: 1, ["depth", "width"], "16")
        assertRefused(naming: "manifest.json", "frames[1].depth.width: expected a number")
        try edit(frame: 1, ["depth", "width"], 16.5)
        assertRefused(naming: "manifest.json", "frames[1].depth.width: expected a whole number, not 16.5")
        try edit(frame: 1, ["depth", "width"], 16)
        try edit(frame: 1, ["depth", "filtered"], "no")
        assertRefused(naming: "manifest.json", "frames[1].depth.filtered: expected true or false")
    }

    func testUnknownFormatNames() throws {
        try edit(["depth", "format"], "depthFloat8")
        assertRefused(
            naming: "manifest.json",
            "frames[0].depth.format 'depthFloat8' is not one of depthFloat16, depthFloat32, disparityFloat16, disparityFloat32")
        try edit(["depth", "format"], "depthFloat16")
        try edit(["color", "format"], "nv12")
        assertRefused(naming: "manifest.json", "frames[0].color.format 'nv12' is not one of yuv420f, yuv420v, bgra, jpeg")
        try edit(["color", "format"], "yuv420f")
        try edit(["color", "yCbCrMatrix"], "bt2020")
        assertRefused(naming: "manifest.json", "frames[0].color.yCbCrMatrix 'bt2020' is not bt709 or bt601")
        try edit(["color", "yCbCrMatrix"], nil)
        try edit(["depth", "accuracy"], "metric")
        assertRefused(naming: "manifest.json", "frames[0].depth.accuracy 'metric' is not absolute or relative")
    }

    func testAFrameFileShorterThanTheManifestSays() throws {
        let file = dir.appendingPathComponent("frames/000001.depth")
        try Data(try Data(contentsOf: file).prefix(300)).write(to: file)
        assertRefused(naming: "frames/000001.depth", "holds 300 bytes; the manifest's 16x12 depthFloat16 plane is 384 bytes")
    }

    func testSizesThatDisagreeWithTheFiles() throws {
        try edit(frame: 1, ["color", "width"], 18)
        assertRefused(naming: "frames/000001.y", "holds 192 bytes; the manifest's 18x12 Y plane is 216 bytes")
        try edit(frame: 1, ["color", "width"], 16)
        try edit(frame: 1, ["depth", "format"], "depthFloat32")
        assertRefused(naming: "frames/000001.depth", "holds 384 bytes; the manifest's 16x12 depthFloat32 plane is 768 bytes")
    }

    func testAMissingFrameFile() throws {
        try FileManager.default.removeItem(at: dir.appendingPathComponent("frames/000001.cbcr"))
        assertRefused(naming: "frames/000001.cbcr", "no such file (a frame file named in manifest.json)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("frames/000001.cbcr"), withIntermediateDirectories: false)
        assertRefused(naming: "frames/000001.cbcr", "is a folder, not a file (a frame file named in manifest.json)")
        try edit(["color", "files"], ["frames/000000.y"])
        assertRefused(naming: "manifest.json", "frames[0].color.files lists 1 files; yuv420f color is 2 (y, cbcr)")
    }

    func testAbsurdDimensionsAreRefusedBeforeAnythingIsRead() throws {
        try edit(["depth", "width"], 100_000)
        assertRefused(naming: "manifest.json", "frames[0].depth: image size 100000x12 is outside 1...16384 on a side")
        try edit(["depth", "width"], 16)
        try edit(["calibration", "referenceDimensions", "height"], 0)
        assertRefused(naming: "manifest.json", "frames[0].calibration: reference dimensions 16x0 are not a plausible image size")
    }

    func testImpossibleIntrinsics() throws {
        let k = try syntheticCamera("synthetic:depth=16x12,color=16x12").intrinsics
        let (fx, cy) = (k.fx, k.cy)
        try edit(["calibration", "intrinsicMatrix"], [[0, 0, 0], [0, fx, 0], [1, cy, 1]])
        assertRefused(naming: "manifest.json", "frames[0].calibration: focal lengths must be finite and positive (fx=0.0")
        try edit(["calibration", "intrinsicMatrix"], [[fx, 0, 0], [0.5, fx, 0], [1, cy, 1]])
        assertRefused(naming: "manifest.json", "frames[0].calibration.intrinsicMatrix must be [[fx, 0, 0], [0, fy, 0], [ox, oy, 1]]")
        try edit(["calibration", "intrinsicMatrix"], [[fx, 0, 0], [0, fx, 0]])
        assertRefused(naming: "manifest.json", "frames[0].calibration.intrinsicMatrix must be 3 columns of 3 numbers")
    }

    func testLensTablesComeWholeAndSane() throws {
        try edit(["calibration", "lensDistortionCenter"], [8, 6])
        try edit(["calibration", "lensDistortionLookupTable"], [0, -0.01, -0.03])
        assertRefused(
            naming: "manifest.json",
            "calibration needs lensDistortionCenter, lensDistortionLookupTable and inverseLensDistortionLookupTable together")
        try edit(["calibration", "inverseLensDistortionLookupTable"], [0, 0.01, -1.5])
        assertRefused(naming: "manifest.json", "frames[0].calibration: lens distortion inverse lookup table entry 2 is -1.5")
        try edit(["calibration", "inverseLensDistortionLookupTable"], [0, 0.01, 0.03])
        XCTAssertEqual(try BundleSource(directory: dir.path).warnings, [])
        // Swapped tables are readable, but cannot undo each other: the user hears about it.
        try edit(["calibration", "lensDistortionLookupTable"], [0, 0.01, 0.03])
        let warnings = try BundleSource(directory: dir.path).warnings
        XCTAssertEqual(warnings.count, 1)
        XCTAssertTrue(
            warnings.first?.message.contains("frames[0]'s lens distortion tables do not invert each other") ?? false, "\(warnings)")
    }

    func testPosesAreForAllFramesOrNoneAndRigid() throws {
        try edit(frame: 1, ["cameraToWorld"], nil)
        assertRefused(naming: "manifest.json", "frames[1] lacks a cameraToWorld pose while frames[0] has one")
        try edit(frame: 0, ["cameraToWorld"], nil)
        XCTAssertFalse(try BundleSource(directory: dir.path).knowsPose)
        try edit(frame: 0, ["cameraToWorld"], [[2, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
        try edit(frame: 1, ["cameraToWorld"], [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
        assertRefused(naming: "manifest.json", "frames[0].cameraToWorld: the rotation is not a rotation")
        try edit(["calibration", "extrinsicMatrix"], [[1, 0, 0], [0, 1, 0], [0, 0, -1], [0, 0, 0]])
        try edit(frame: 0, ["cameraToWorld"], [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
        assertRefused(
            naming: "manifest.json", "frames[0].calibration.extrinsicMatrix (depth to color, millimetres): the rotation is not a rotation")
    }

    func testFramePathsStayInsideTheBundle() throws {
        for name in ["../bundle/frames/000000.depth", "/etc/passwd", "frames//000000.depth", "./frames/000000.depth", ""] {
            try edit(["depth", "file"], name)
            assertRefused(naming: "manifest.json", "frames[0].depth.file '\(name)' must be a path inside the bundle")
        }
    }

    /// A frame file that is a symbolic link to a file outside the bundle (of the right length)
    /// is refused; one to a file inside it is followed.
    func testSymbolicLinksStayInsideTheBundle() throws {
        let plane = dir.appendingPathComponent("frames/000000.depth")
        let outside = dir.deletingLastPathComponent().appendingPathComponent("elsewhere.depth")
        try FileManager.default.moveItem(at: plane, to: outside)
        try FileManager.default.createSymbolicLink(at: plane, withDestinationURL: outside)
        assertRefused(
            naming: "manifest.json", "frames[0].depth.file 'frames/000000.depth' leads outside the bundle through a symbolic link")
        let inside = dir.appendingPathComponent("frames/moved.depth")
        try FileManager.default.removeItem(at: plane)
        try FileManager.default.moveItem(at: outside, to: inside)
        try FileManager.default.createSymbolicLink(atPath: plane.path, withDestinationPath: "moved.depth")
        XCTAssertEqual(try BundleSource(directory: dir.path).frameCount, 2)
    }

    func testADuplicatedKeyIsRefused() throws {
        let manifest = URL(fileURLWithPath: path("manifest.json"))
        let text = try String(contentsOf: manifest, encoding: .utf8)
        try ("{\"format\": \"other\", " + text.drop { $0 != "{" }.dropFirst()).write(to: manifest, atomically: false, encoding: .utf8)
        assertRefused(naming: "manifest.json", "key 'format' appears twice in one object")
    }

    // MARK: JPEG color

    /// SOI, a JFIF APP0 segment and a baseline frame header of `width` x `height` with three
    /// components, then the start of a scan: the part of a JPEG that opening reads.
    private func jpegHeader(width: Int, height: Int) -> [UInt8] {
        [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]
            + [
                0xFF, 0xFF, 0xC0, 0x00, 0x11, 0x08, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF),
                0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01
            ]
            + [0xFF, 0xDA, 0x00, 0x0C, 0x03, 0x01, 0x00, 0x02, 0x11, 0x03, 0x11, 0x00, 0x3F, 0x00, 0x12, 0x34]
    }

    private func useJPEG(_ bytes: [UInt8]) throws {
        try Data(bytes).write(to: dir.appendingPathComponent("frames/000000.jpg"))
        try edit(["color", "format"], "jpeg")
        try edit(["color", "files"], ["frames/000000.jpg"])
        try edit(["color", "yCbCrMatrix"], nil)
    }

    func testACorruptJPEG() throws {
        try useJPEG(Array("this is not a JPEG at all".utf8))
        assertRefused(naming: "frames/000000.jpg", "corrupt JPEG: it does not start with a JPEG start-of-image marker")
        try useJPEG(Array(jpegHeader(width: 16, height: 12).prefix(23)))
        assertRefused(naming: "frames/000000.jpg", "corrupt JPEG: the file ends inside its headers")
        try useJPEG([0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02, 0xFF, 0xD9])
        assertRefused(naming: "frames/000000.jpg", "corrupt JPEG: scan data starts before any frame header")
        try useJPEG([])
        assertRefused(naming: "frames/000000.jpg", "corrupt JPEG: the file ends inside its headers")
        try useJPEG(jpegHeader(width: 20, height: 10))
        assertRefused(naming: "frames/000000.jpg", "the JPEG is 20x10, the manifest says 16x12")
        try edit(["color", "yCbCrMatrix"], "bt601")
        assertRefused(naming: "manifest.json", "frames[0].color.yCbCrMatrix applies to the YUV formats only, not jpeg")
    }

    /// Headers of any length are walked to their end: 16 MB of fill bytes took half a minute (two
    /// reads per byte); found by Tools/fuzz (jpegheader), whose 10 s bound per input is where the
    /// time is held (a wall-clock bound here would flake on a busy machine). Headers are read
    /// through a 64 KiB window now: fill bytes across 256 windows, and a million empty APP1
    /// segments (segments straddle every window boundary), still lead to the frame header.
    func testLongJPEGHeadersAreWalkedToTheirEnd() throws {
        try useJPEG([0xFF, 0xD8] + [UInt8](repeating: 0xFF, count: 16 << 20))
        assertRefused(naming: "frames/000000.jpg", "corrupt JPEG: the file ends inside its headers")
        try useJPEG([0xFF, 0xD8] + [UInt8](repeating: 0xFF, count: 16 << 20) + jpegHeader(width: 16, height: 12).dropFirst(2))
        XCTAssertEqual(try BundleSource(directory: dir.path).frameCount, 2)

        let emptySegments = Array([[UInt8]](repeating: [0xFF, 0xE1, 0x00, 0x02], count: 1 << 20).joined())
        try useJPEG([0xFF, 0xD8] + emptySegments + [0xFF, 0xFF, 0xFF] + jpegHeader(width: 16, height: 12).dropFirst(2))
        XCTAssertEqual(try BundleSource(directory: dir.path).frameCount, 2)
        try useJPEG([0xFF, 0xD8] + emptySegments + jpegHeader(width: 20, height: 10).dropFirst(2))
        assertRefused(naming: "frames/000000.jpg", "the JPEG is 20x10, the manifest says 16x12")
    }

    /// A real JPEG (Open3D's test frame, 640x480) as a frame's color: decoded to RGB by CloudImages,
    /// once, when its frame is read. Cut short, its headers still read, so the bundle opens (its
    /// headers and size were checked); reading the frame fails, naming the file.
    func testJPEGColorIsDecodedOnceWhenItsFrameIsRead() throws {
        let jpeg = [UInt8](try Data(contentsOf: try Self.sharedJPEG()))
        try useJPEG(jpeg)
        try edit(["color", "width"], 640)
        try edit(["color", "height"], 480)
        let source = try BundleSource(directory: dir.path)
        let color = try XCTUnwrap(try source.nextFrame()?.color)
        XCTAssertEqual(color.layout, .rgb8)
        XCTAssertEqual(color.width, 640)
        XCTAssertEqual(color.planes.map(\.count), [640 * 480 * 3])
        XCTAssertGreaterThan(Set(color.planes[0]).count, 100, "a photograph, not a flat fill")
        XCTAssertEqual(
            try source.nextFrame()?.color?.layout, .yuv420BiPlanar(YUVFormat(range: .full, matrix: .bt709)),
            "the second frame keeps its YUV color")

        try useJPEG(Array(jpeg.prefix(jpeg.count / 2)))
        let cut = try BundleSource(directory: dir.path)
        XCTAssertThrowsError(try cut.nextFrame()) { error in
            XCTAssertEqual((error as? CloudError)?.kind, .badInput, "\(error)")
            XCTAssertTrue("\(error)".hasPrefix(self.path("frames/000000.jpg") + ": "), "\(error)")
            XCTAssertTrue("\(error)".contains("JPEG"), "\(error)")
        }
    }

    /// Open3D's first color frame in ../shared/data (see its README).
    private static func sharedJPEG() throws -> URL {
        try SharedData.url("open3d-rgbd/color/00000.jpg")
    }

    /// A file that changes after the bundle was checked is noticed when its frame is read.
    func testAFileChangedAfterOpeningIsNoticed() throws {
        let source = try BundleSource(directory: dir.path)
        let file = dir.appendingPathComponent("frames/000000.depth")
        try Data([0, 0]).write(to: file)
        XCTAssertThrowsError(try source.nextFrame()) { error in
            XCTAssertEqual("\(error)", "\(file.path): holds 2 bytes, 384 when the bundle was opened")
        }
    }
}
