import CloudCapture
import CloudCore
import Foundation
import SharedTestData
import XCTest

/// `polycam:DIR` on an export written from the simulated camera (PolycamFixture): every keyframe
/// back-projects, through the JSON's intrinsics scaled to the depth map and its ARKit pose turned
/// into cloudgen's axes, to the very points the simulator's own frame gives; the corrected set wins;
/// confidence drops exactly the pixels it marks; and every malformed part is refused by name.
final class PolycamSourceTests: XCTestCase {
    private func assertKeyframesAreTheSimulatedFrames(
        _ fixture: PolycamFixture, options: SourceOptions = SourceOptions(),
        dropped: (Int) -> Int = { _ in 0 }, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let source = try SourceSpec(parsing: "polycam:\(fixture.folder)").open(options: options)
        XCTAssertTrue(source.knowsPose)
        for (index, truth) in fixture.frames.enumerated() {
            let frame = try XCTUnwrap(try source.nextFrame(), file: file, line: line)
            XCTAssertEqual(
                frame.intrinsics.scaled(toWidth: 256, height: 192).fx, truth.intrinsics.scaled(toWidth: 256, height: 192).fx,
                accuracy: 1e-9, file: file, line: line)
            guard let colors = try assertSameWorldPoints(frame, as: truth, index: index, dropped: dropped(index), file: file, line: line)
            else { continue }
            // JPEG at quality 95: colors close, not equal.
            let mean = zip(colors.ours, colors.expected).map { abs(Int($0) - Int($1)) }.reduce(0, +) / max(1, colors.ours.count)
            XCTAssertLessThanOrEqual(mean, 3, "frame \(index): mean color difference", file: file, line: line)
        }
        XCTAssertNil(try source.nextFrame())
    }

    func testKeyframesBackProjectToTheSimulatedRoomsPoints() throws {
        try assertKeyframesAreTheSimulatedFrames(
            try PolycamFixture(in: DatasetFixture.scratch(self)), options: SourceOptions(minConfidence: 0))
    }

    func testTheCorrectedCamerasAreReadWhenTheExportHasThem() throws {
        let fixture = try PolycamFixture(in: DatasetFixture.scratch(self), corrected: true)
        let source = try SourceSpec(parsing: "polycam:\(fixture.folder)").open()
        XCTAssertTrue(
            source.warnings.contains { $0.message.contains("reading the corrected keyframes (corrected_cameras/, images/)") },
            "\(source.warnings)")
        try assertKeyframesAreTheSimulatedFrames(fixture, options: SourceOptions(minConfidence: 0))
    }

    func testMinConfidenceDropsExactlyThePixelsBelowIt() throws {
        let fixture = try PolycamFixture(in: DatasetFixture.scratch(self))
        let w = fixture.frames[0].depth.width
        let byDefault = try SourceSpec(parsing: "polycam:\(fixture.folder)").open()
        XCTAssertTrue(
            byDefault.warnings.contains { $0.message.contains("depth of low ARKit confidence dropped, as Polycam advises") },
            "\(byDefault.warnings)")
        XCTAssertEqual(byDefault.worldUp, SIMD3(0, 1, 0), "ARKit's gravity-aligned world")
        // By default as with 1: low dropped.
        try assertKeyframesAreTheSimulatedFrames(fixture, dropped: { validDepthPixels(fixture.frames[$0], columns: 0..<(w / 4)) })
        try assertKeyframesAreTheSimulatedFrames(
            fixture, options: SourceOptions(minConfidence: 1),
            dropped: { validDepthPixels(fixture.frames[$0], columns: 0..<(w / 4)) })
        try assertKeyframesAreTheSimulatedFrames(
            fixture, options: SourceOptions(minConfidence: 2),
            dropped: { validDepthPixels(fixture.frames[$0], columns: 0..<(w / 2)) })
        XCTAssertGreaterThan(validDepthPixels(fixture.frames[0], columns: 0..<(w / 4)), 1000, "the low quarter holds depth")
    }

    func testMalformedExportsAreRefusedNamingTheFile() throws {
        let fixture = try PolycamFixture(in: DatasetFixture.scratch(self))
        let keyframes = fixture.folder + "/keyframes"
        let cameras = try FileManager.default.contentsOfDirectory(atPath: keyframes + "/cameras").sorted()
        let first = keyframes + "/cameras/" + cameras[0]
        let original = try String(contentsOfFile: first, encoding: .utf8)
        func open() throws { _ = try SourceSpec(parsing: "polycam:\(fixture.folder)").open() }
        for (text, detail) in [
            (original.replacingOccurrences(of: "\"fx\"", with: "\"focal\""), "no 'fx'"),
            (original.replacingOccurrences(of: "\"blur_score\": 180.5", with: "\"blur_score\": 1, \"cy\": 3"), "appears twice"),
            (original.replacingOccurrences(of: "\"width\": 320", with: "\"width\": true"), "'width' is not a number"),
            (original.replacingOccurrences(of: "\"width\": 320", with: "\"width\": 320.5"), "not an image size"),
            ("[1, 2]", "not a JSON object"),
            ("{\"fx\": 1e999}", "not a JSON object")
        ] {
            try text.write(toFile: first, atomically: true, encoding: .utf8)
            assertCloudError(.badInput, naming: first, containing: detail) { try open() }
        }
        let stretched = Pose(rows: (SIMD3(2, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)), translation: .zero)
        try PolycamFixture.writeCamera(
            CameraIntrinsics(fx: 200, fy: 200, cx: 160, cy: 120, referenceWidth: 320, referenceHeight: 240),
            stretched, to: first)
        assertCloudError(.badInput, naming: first, containing: "is not a rotation") { try open() }
        try original.write(toFile: first, atomically: true, encoding: .utf8)

        // A keyframe without its depth map is left out by name; the others are read with their own cameras.
        let stem = cameras[1].replacingOccurrences(of: ".json", with: "")
        try FileManager.default.removeItem(atPath: keyframes + "/depth/\(stem).png")
        let source = try SourceSpec(parsing: "polycam:\(fixture.folder)").open()
        XCTAssertTrue(
            source.warnings.contains { $0.message.contains("1 of \(cameras.count) keyframes (\(stem)) lack") }, "\(source.warnings)")
        XCTAssertEqual(source.knownFrameCount, cameras.count - 1)
        var read = 0
        while try source.nextFrame() != nil { read += 1 }
        XCTAssertEqual(read, cameras.count - 1)
        for name in try FileManager.default.contentsOfDirectory(atPath: keyframes + "/images") {
            try FileManager.default.removeItem(atPath: keyframes + "/images/" + name)
        }
        assertCloudError(.badInput, naming: fixture.folder, containing: "none of the \(cameras.count) keyframes has both") { try open() }
        try FileManager.default.removeItem(atPath: keyframes + "/confidence")
        assertCloudError(.badInput, naming: fixture.folder, containing: "--min-confidence needs keyframes/confidence/") {
            try SourceSpec(parsing: "polycam:\(fixture.folder)").open(options: SourceOptions(minConfidence: 1))
        }
        assertCloudError(.badInput, naming: "--min-confidence", containing: "not 3") {
            try SourceSpec(parsing: "polycam:\(fixture.folder)").open(options: SourceOptions(minConfidence: 3))
        }
        assertCloudError(.badInput, naming: "--min-confidence", containing: "only to polycam:") {
            try SourceSpec(parsing: "tum:\(fixture.folder)").open(options: SourceOptions(minConfidence: 1))
        }
        try FileManager.default.removeItem(atPath: keyframes)
        assertCloudError(.badInput, naming: fixture.folder, containing: "no keyframes/ folder") { try open() }
    }
}
