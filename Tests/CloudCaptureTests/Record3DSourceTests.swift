import CloudCapture
import CloudCore
import CloudImages
import Foundation
import SharedTestData
import TestEncoders
import XCTest

/// `record3d:DIR` on an "EXR + JPG" export written from the simulated camera (Record3DFixture):
/// every frame back-projects, through metadata.json's column-major K scaled to the depth map and its
/// OpenGL-axes quaternion pose turned into cloudgen's axes, to the very points the simulator's own
/// frame gives; every malformed part is refused by name; a .r3d is refused with the way out.
final class Record3DSourceTests: XCTestCase {
    /// `tolerance`: metres between a frame's world points and the simulator's.
    private func assertFramesAreTheSimulatedFrames(
        _ fixture: Record3DFixture, tolerance: Float,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> Float {
        let source = try SourceSpec(parsing: "record3d:\(fixture.folder)").open()
        XCTAssertTrue(source.knowsPose, file: file, line: line)
        XCTAssertNil(source.worldUp, "Record3D's world is the first camera's, not gravity-aligned", file: file, line: line)
        XCTAssertEqual(source.knownFrameCount, fixture.frames.count, file: file, line: line)
        var largest: Float = 0
        for (index, truth) in fixture.frames.enumerated() {
            let frame = try XCTUnwrap(try source.nextFrame(), file: file, line: line)
            XCTAssertEqual(
                frame.intrinsics.fx, truth.intrinsics.scaled(toWidth: truth.depth.width, height: truth.depth.height).fx,
                accuracy: 1e-9, file: file, line: line)
            XCTAssertEqual(
                frame.intrinsics.cy, truth.intrinsics.scaled(toWidth: truth.depth.width, height: truth.depth.height).cy,
                accuracy: 1e-9, file: file, line: line)
            let (ours, oursColors) = try worldPoints(frame)
            let (expected, expectedColors) = try worldPoints(truth)
            XCTAssertGreaterThan(expected.count, 30_000, "frame \(index) sees the room", file: file, line: line)
            XCTAssertEqual(ours.count, expected.count, "frame \(index): points", file: file, line: line)
            guard ours.count == expected.count else { continue }
            let worst = zip(ours, expected).map { abs($0 - $1) }.max() ?? .infinity
            XCTAssertLessThan(
                worst, tolerance, "frame \(index): largest difference from the simulator's world points (m)", file: file, line: line)
            largest = max(largest, worst)
            // JPEG at quality 95: colors close, not equal.
            let mean = zip(oursColors, expectedColors).map { abs(Int($0) - Int($1)) }.reduce(0, +) / max(1, oursColors.count)
            XCTAssertLessThanOrEqual(mean, 3, "frame \(index): mean color difference", file: file, line: line)
        }
        XCTAssertNil(try source.nextFrame(), file: file, line: line)
        return largest
    }

    func testFramesBackProjectToTheSimulatedRoomsPoints() throws {
        let fixture = try Record3DFixture(in: DatasetFixture.scratch(self))
        _ = try assertFramesAreTheSimulatedFrames(fixture, tolerance: 1e-5)
    }

    /// Half floats keep 11 significant bits: points move by up to z * 2^-11 (2.5 mm at 5 m), and do move.
    func testHalfFloatDepthIsReadAsStored() throws {
        let fixture = try Record3DFixture(in: DatasetFixture.scratch(self), halfDepth: true)
        let worst = try assertFramesAreTheSimulatedFrames(fixture, tolerance: 3e-3)
        XCTAssertGreaterThan(worst, 1e-5, "the half-float depth was rounded")
    }

    func testMalformedMetadataIsRefusedNamingTheFile() throws {
        let fixture = try Record3DFixture(in: DatasetFixture.scratch(self))
        let path = fixture.metadataPath
        let original = try String(contentsOfFile: path, encoding: .utf8)
        func open() throws { _ = try SourceSpec(parsing: "record3d:\(fixture.folder)").open() }
        let k = try XCTUnwrap(original.range(of: #""K": \[[^\]]*\]"#, options: .regularExpression))
        func withK(_ text: String) -> String { original.replacingCharacters(in: k, with: "\"K\": \(text)") }
        let poses = try XCTUnwrap(original.range(of: #"\]\]\}$"#, options: .regularExpression))
        for (text, detail) in [
            (withK("[NaN, 0, 0, 0, 200, 0, 160, 120, 1]"), "not a JSON object"),
            (withK("[200, 0, 0, 0, 200, 0, 160, 120]"), "'K' holds 8 numbers"),
            (withK("[200, 0, 160, 0, 200, 120, 0, 0, 1]"), "'K' is not a column-major pinhole matrix"),
            (withK("[-200, 0, 0, 0, 200, 0, 160, 120, 1]"), "focal lengths must be finite and positive"),
            (withK("[200, 0, 0, 0, \"200\", 0, 160, 120, 1]"), "'K'[4] is not a finite number"),
            (original.replacingOccurrences(of: "\"K\"", with: "\"k\""), "no 'K'"),
            (original.replacingOccurrences(of: "\"w\": 320", with: "\"w\": true"), "'w' is not an image size"),
            (original.replacingOccurrences(of: "\"dh\"", with: "\"dheight\""), "one of 'dw' and 'dh' without the other"),
            (original.replacingOccurrences(of: "\"fps\": 60", with: "\"fps\": 60, \"w\": 320"), "appears twice"),
            (original.replacingOccurrences(of: "\"fps\": 60", with: "\"fps\": 0"), "'fps' is not a frame rate"),
            (original.replacingOccurrences(of: "\"fps\": 60", with: "\"fps\": \"60\""), "'fps' is not a frame rate"),
            (original.replacingCharacters(in: poses, with: "], [0, 0, 0, 0, 1, 2, 3]]}"), "poses[3] has a zero quaternion"),
            (original.replacingCharacters(in: poses, with: "], [0, 0, 0, 1, 0, 0]]}"), "poses[3] is not 7 numbers"),
            (original.replacingOccurrences(of: "\"poses\"", with: "\"pose\""), "no 'poses'"),
            ("[1, 2]", "not a JSON object")
        ] {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            assertCloudError(.badInput, naming: path, containing: detail) { try open() }
        }
        try original.replacingOccurrences(of: "\"dw\": 256", with: "\"dw\": 320").write(toFile: path, atomically: true, encoding: .utf8)
        assertCloudError(
            .badInput, naming: fixture.folder + "/depth/0.exr", containing: "the depth map is 256x192, metadata.json says 320x192"
        ) {
            try SourceSpec(parsing: "record3d:\(fixture.folder)").open().nextFrame()
        }
        try FileManager.default.removeItem(atPath: path)
        assertCloudError(.badInput, naming: path, containing: "no such file (Record3D's metadata") { try open() }
        assertCloudError(.badInput, naming: "--min-confidence", containing: "only to polycam:") {
            try SourceSpec(parsing: "record3d:\(fixture.folder)").open(options: SourceOptions(minConfidence: 1))
        }
    }

    func testBadDepthFilesAreRefusedNamingTheFile() throws {
        let fixture = try Record3DFixture(in: DatasetFixture.scratch(self))
        let exr = fixture.folder + "/depth/1.exr"
        let original = try Data(contentsOf: URL(fileURLWithPath: exr))
        func read() throws {
            let source = try SourceSpec(parsing: "record3d:\(fixture.folder)").open()
            while try source.nextFrame() != nil {}
        }
        // The data window's four int32s follow its name, its type and its size (16).
        let window = try XCTUnwrap(original.range(of: Data("dataWindow\0box2i\0".utf8))).upperBound + 4
        func patched(_ values: [Int32]) -> Data {
            var data = original
            for (i, v) in values.enumerated() {
                data.replaceSubrange((window + 4 * i)..<(window + 4 * i + 4), with: withUnsafeBytes(of: v.littleEndian) { Data($0) })
            }
            return data
        }
        var corrupt = original
        for i in (corrupt.count - 300)..<(corrupt.count - 20) { corrupt[i] ^= 0x5A }
        let width = Int32(fixture.frames[1].depth.width)
        for (bytes, detail) in [
            (original.prefix(original.count / 2), "cannot read EXR"),
            (original.prefix(40), "cannot read EXR: not a readable EXR file"),
            (corrupt, "cannot read EXR"),
            (patched([0, 0, 99_999, 191]), "too large (max 16384)"),
            (patched([Int32.min, 0, Int32.max, 191]), "cannot read EXR"),
            (patched([0, 0, width - 1, 100_000]), "too large (max 16384)"),
            (try Data(contentsOf: URL(fileURLWithPath: fixture.folder + "/rgb/1.jpg")), "not a readable EXR file")
        ] {
            try bytes.write(to: URL(fileURLWithPath: exr))
            assertCloudError(.badInput, naming: exr, containing: detail) { try read() }
        }
        try tiled(original).write(to: URL(fileURLWithPath: exr))
        assertCloudError(.badInput, naming: exr, containing: "a tiled EXR; cloudgen reads scanline EXR files only") { try read() }
        try EXRDepthFile.write([Float](repeating: 1, count: 256 * 192), width: 256, height: 192, channel: "Z", to: exr)
        assertCloudError(.badInput, naming: exr, containing: "no channel R (the file has Z (float))") { try read() }

        // Files are matched to poses by the number they are named by: one beyond the poses, a name
        // that is no number, or two files for one frame are refused naming the file.
        let beyond = fixture.folder + "/depth/7.exr"
        try FileManager.default.moveItem(atPath: exr, toPath: beyond)
        assertCloudError(.badInput, naming: beyond, containing: "frame 7, but \(fixture.metadataPath) holds 3 poses (frames 0-2)") {
            try read()
        }
        let unnumbered = fixture.folder + "/depth/depth1.exr"
        try FileManager.default.moveItem(atPath: beyond, toPath: unnumbered)
        assertCloudError(.badInput, naming: unnumbered, containing: "not named by a frame number") { try read() }
        try FileManager.default.moveItem(atPath: unnumbered, toPath: fixture.folder + "/depth/01.exr")
        try FileManager.default.copyItem(atPath: fixture.folder + "/depth/01.exr", toPath: exr)
        assertCloudError(.badInput, naming: fixture.folder + "/depth/", containing: "a second file for frame 1") { try read() }
        for n in 0...2 { try? FileManager.default.removeItem(atPath: fixture.folder + "/depth/\(n).exr") }
        try FileManager.default.removeItem(atPath: fixture.folder + "/depth/01.exr")
        assertCloudError(.badInput, naming: fixture.folder, containing: "none of metadata.json's 3 frames has both its depth map") {
            try read()
        }
        try FileManager.default.removeItem(atPath: fixture.folder + "/depth")
        assertCloudError(.badInput, naming: fixture.folder, containing: "no depth/ folder") { try read() }
    }

    /// A real export can lack some frames' files (a published Record3D export lacks four
    /// of its 345 frames). The frames that have both files give the very points and colors the
    /// full export gives for them, at their own numbers; the ones left out are named, in ranges.
    func testFramesWhoseFilesAreMissingAreLeftOutAndNamed() throws {
        let fixture = try Record3DFixture(in: DatasetFixture.scratch(self), frames: 6)
        let full = try SourceSpec(parsing: "record3d:\(fixture.folder)").open()
        XCTAssertEqual(full.warnings, [])
        var fullFrames: [CapturedFrame] = []
        while let frame = try full.nextFrame() { fullFrames.append(frame) }
        XCTAssertEqual(fullFrames.count, 6)

        for n in [1, 3, 4] { try FileManager.default.removeItem(atPath: fixture.folder + "/depth/\(n).exr") }
        try FileManager.default.removeItem(atPath: fixture.folder + "/rgb/5.jpg")
        let source = try SourceSpec(parsing: "record3d:\(fixture.folder)").open()
        XCTAssertEqual(
            source.warnings.map(\.message),
            [
                "record3d:\(fixture.folder): frames 1, 3-4 of 6 have no depth map (depth/N.exr); left out",
                "record3d:\(fixture.folder): frame 5 of 6 has a depth map but no color image (rgb/N.jpg); left out"
            ])
        XCTAssertEqual(source.knownFrameCount, 2)
        for number in [0, 2] {
            let frame = try XCTUnwrap(try source.nextFrame())
            // metadata.json's fps (60) times the frames: frame N at N / 60 s.
            XCTAssertEqual(frame.timestamp, Double(number) / 60, "frame \(number) keeps its number and its time")
            XCTAssertEqual(frame.pose, fullFrames[number].pose)
            let (kept, keptColors) = try worldPoints(frame)
            let (whole, wholeColors) = try worldPoints(fullFrames[number])
            XCTAssertGreaterThan(whole.count, 30_000)
            XCTAssertEqual(kept, whole, "frame \(number): points")
            XCTAssertEqual(keptColors, wholeColors, "frame \(number): colors")
        }
        XCTAssertNil(try source.nextFrame())
    }

    /// A scanline EXR's header made a tiled one's: the version's tiled flag and a `tiles` attribute
    /// (16x16 tiles, one level) before the header's end; the chunks after it are left as they were.
    private func tiled(_ scanline: Data) -> Data {
        let bytes = [UInt8](scanline)
        var at = 8
        while bytes[at] != 0 {
            let name = bytes[at...].firstIndex(of: 0)!
            let type = bytes[(name + 1)...].firstIndex(of: 0)!
            let size = Int(bytes[type + 1]) | Int(bytes[type + 2]) << 8 | Int(bytes[type + 3]) << 16 | Int(bytes[type + 4]) << 24
            at = type + 5 + size
        }
        var out = bytes
        out[5] |= 0x02
        out.insert(contentsOf: Array("tiles\0tiledesc\0".utf8) + [9, 0, 0, 0, 16, 0, 0, 0, 16, 0, 0, 0, 0], at: at)
        return Data(out)
    }

    /// Record3D's own format is refused, whether the file or its unzipped folder, saying what to export instead.
    func testR3DRecordingsAreRefusedWithTheExportAdvice() throws {
        let scratch = try DatasetFixture.scratch(self)
        // A zip at `path` of the members `names`, each one byte: only the names tell what it is.
        func zip(_ path: String, _ names: [String]) throws {
            let python = Process()
            python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            python.arguments =
                [
                    "python3", "-c",
                    """
                    import sys, zipfile
                    with zipfile.ZipFile(sys.argv[1], 'w') as z:
                        for name in sys.argv[2:]:
                            z.writestr(name, b'x')
                    """, path
                ] + names
            try python.run()
            python.waitUntilExit()
            XCTAssertEqual(python.terminationStatus, 0, "python3 wrote \(path)")
        }
        let advice = "export the recording from Record3D as \"EXR + JPG\""
        let r3d = scratch + "/walk.r3d"
        try zip(r3d, ["metadata", "icon", "rgbd/0.jpg", "rgbd/0.depth", "rgbd/0.conf", "sound.m4a"])
        assertCloudError(.badInput, naming: r3d, containing: advice) { try SourceSpec(parsing: "record3d:\(r3d)").open() }
        // Re-zipped with its folder around it, under another name: still a .r3d.
        let wrapped = scratch + "/walk.zip"
        try zip(wrapped, ["walk/metadata", "walk/rgbd/0.jpg", "walk/rgbd/0.depth"])
        assertCloudError(.badInput, naming: wrapped, containing: advice) { try SourceSpec(parsing: "record3d:\(wrapped)").open() }
        // A zip of the EXR + JPG export is not its folder.
        let export = scratch + "/export.zip"
        try zip(export, ["metadata.json", "rgb/0.jpg", "depth/0.exr"])
        assertCloudError(.badInput, naming: export, containing: "not a folder") { try SourceSpec(parsing: "record3d:\(export)").open() }

        let unzipped = scratch + "/walk"
        try FileManager.default.createDirectory(atPath: unzipped + "/rgbd", withIntermediateDirectories: true)
        for name in ["metadata", "rgbd/0.jpg", "rgbd/0.depth", "rgbd/0.conf"] {
            try Data("x".utf8).write(to: URL(fileURLWithPath: "\(unzipped)/\(name)"))
        }
        assertCloudError(.badInput, naming: unzipped, containing: advice) { try SourceSpec(parsing: "record3d:\(unzipped)").open() }
    }
}
