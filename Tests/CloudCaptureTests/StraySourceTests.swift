import CloudCapture
import CloudCore
import CloudImages
import Foundation
import SharedTestData
import XCTest

/// `stray:DIR` on an export written from the simulated camera (StrayFixture): every frame
/// back-projects, through camera_matrix.csv scaled from the video's size to the depth map and the
/// odometry's pose as the app writes it, to the very points the simulator's own frame gives, with
/// the video's colors; .npy depth reads as PNG depth does; confidence drops exactly the pixels it
/// marks; and every malformed part is refused by name.
final class StraySourceTests: XCTestCase {
    private func assertFramesAreTheSimulatedFrames(
        _ fixture: StrayFixture, options: SourceOptions = SourceOptions(),
        dropped: (Int) -> Int = { _ in 0 }, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let source = try SourceSpec(parsing: "stray:\(fixture.folder)").open(options: options)
        XCTAssertTrue(source.knowsPose, file: file, line: line)
        XCTAssertEqual(source.knownFrameCount, fixture.frames.count, file: file, line: line)
        XCTAssertEqual(source.worldUp, SIMD3(0, 1, 0), "ARKit's gravity-aligned world", file: file, line: line)
        for (index, truth) in fixture.frames.enumerated() {
            let frame = try XCTUnwrap(try source.nextFrame(), file: file, line: line)
            XCTAssertEqual(
                frame.timestamp, 1000.25 + Double(index) / 60, accuracy: 1e-9, "odometry.csv's timestamp", file: file, line: line)
            XCTAssertEqual(frame.color?.width, 320, "the video's frame size", file: file, line: line)
            guard let colors = try assertSameWorldPoints(frame, as: truth, index: index, dropped: dropped(index), file: file, line: line)
            else { continue }
            // HEVC at CRF 12 with 4:2:0 chroma: colors close, not equal.
            let mean =
                Double(zip(colors.ours, colors.expected).map { abs(Int($0) - Int($1)) }.reduce(0, +)) / Double(max(1, colors.ours.count))
            XCTAssertLessThan(mean, 4, "frame \(index): mean color difference", file: file, line: line)
            XCTAssertGreaterThan(
                Set(colors.ours).count, 50, "frame \(index): the room's colors, not one flat color", file: file, line: line)
        }
        XCTAssertNil(try source.nextFrame(), file: file, line: line)
    }

    func testFramesBackProjectToTheSimulatedRoomsPointsWithTheVideosColors() throws {
        try assertFramesAreTheSimulatedFrames(try StrayFixture(in: DatasetFixture.scratch(self)), options: SourceOptions(minConfidence: 0))
    }

    /// A real export can lack some frames' depth: the others are read, each with its own pose and
    /// its own video frame (the missing frame's is decoded past), and the warning names the gap.
    func testFramesWithoutDepthAreLeftOutByNumberAndSaid() throws {
        let fixture = try StrayFixture(in: DatasetFixture.scratch(self))
        // Each video frame one flat color (red, green, blue), so that a frame shows whose it is.
        let flat: [[UInt8]] = [[200, 30, 30], [30, 200, 30], [30, 30, 200]]
        let first = try XCTUnwrap(try RGBDFrame(decoding: fixture.frames[0], origin: "truth").color)
        try StrayFixture.encodeVideo(
            flat.map {
                ColorImage(
                    width: first.width, height: first.height, rgb: Array(repeating: $0, count: first.width * first.height).flatMap { $0 })
            },
            to: fixture.folder + "/rgb.mp4")
        try FileManager.default.removeItem(atPath: fixture.folder + "/depth/000001.png")
        let source = try SourceSpec(parsing: "stray:\(fixture.folder)").open(options: SourceOptions(minConfidence: 0))
        XCTAssertTrue(
            source.warnings.contains { $0.message.contains("frame 1 of 3 has no depth") && $0.message.contains("left out") },
            "\(source.warnings)")
        XCTAssertEqual(source.knownFrameCount, 2)
        for expected in [0, 2] {
            let frame = try XCTUnwrap(try source.nextFrame())
            XCTAssertEqual(frame.timestamp, 1000.25 + Double(expected) / 60, accuracy: 1e-9, "frame \(expected)'s pose and time")
            let color = try XCTUnwrap(try RGBDFrame(decoding: frame, origin: "stray").color)
            let means = (0..<3).map { channel in
                Double(stride(from: channel, to: color.rgb.count, by: 3).reduce(0) { $0 + Int(color.rgb[$1]) })
                    / Double(color.rgb.count / 3)
            }
            // Its own video frame, not the one left out before it.
            XCTAssertEqual(means.firstIndex(of: means.max()!), expected == 0 ? 0 : 2, "frame \(expected) shows \(means)")
        }
        XCTAssertNil(try source.nextFrame())
    }

    func testNumPyDepthOfOlderExportsReadsAsPNGDepthDoes() throws {
        try assertFramesAreTheSimulatedFrames(
            try StrayFixture(in: DatasetFixture.scratch(self), npy: true), options: SourceOptions(minConfidence: 0))
    }

    /// A video re-encoded elsewhere: H.264, full range, BT.601 and untagged; the frames say their
    /// range, and an untagged matrix is BT.601 as FFmpeg's own converters take it.
    func testAnH264FullRangeVideoReadsWithItsOwnRange() throws {
        let fixture = try StrayFixture(in: DatasetFixture.scratch(self))
        let colors = try fixture.frames.map { try XCTUnwrap(try RGBDFrame(decoding: $0, origin: "frame").color) }
        try StrayFixture.encodeVideo(colors, to: fixture.folder + "/rgb.mp4", h264FullRange: true)
        try assertFramesAreTheSimulatedFrames(fixture, options: SourceOptions(minConfidence: 0))
    }

    /// Frames smaller than the decoder's blocks round up to: the decoder checks the rounded-up
    /// size against the bound the reader gives it, which must leave room for that.
    func testSmallH264FramesDecodeToTheirColors() throws {
        let (w, h) = (48, 32)
        let gradient = ColorImage(width: w, height: h, rgb: (0..<(w * h)).flatMap { i in [UInt8(i % w * 5), UInt8(i / w * 7), 128] })
        let path = try DatasetFixture.scratch(self) + "/small.mp4"
        try StrayFixture.encodeVideo([gradient, gradient], to: path, h264FullRange: true)
        let video = try VideoFrames(path: path)
        XCTAssertEqual([video.width, video.height, video.declaredFrameCount], [w, h, 2])
        for _ in 0..<2 {
            let decoded = try ColorImage(decoding: try XCTUnwrap(try video.next()), origin: path)
            let mean = Double(zip(decoded.rgb, gradient.rgb).map { abs(Int($0) - Int($1)) }.reduce(0, +)) / Double(gradient.rgb.count)
            XCTAssertLessThan(mean, 4, "mean color difference")
        }
        XCTAssertNil(try video.next())
    }

    /// Files written with Windows line ends (CR LF), as a copy through some tools leaves them.
    func testCameraMatrixAndOdometryWithCRLFLineEndsReadAlike() throws {
        let fixture = try StrayFixture(in: DatasetFixture.scratch(self))
        for name in ["camera_matrix.csv", "odometry.csv"] {
            let path = fixture.folder + "/" + name
            let text = try String(contentsOfFile: path, encoding: .utf8)
            try text.replacingOccurrences(of: "\n", with: "\r\n").write(toFile: path, atomically: true, encoding: .utf8)
        }
        try assertFramesAreTheSimulatedFrames(fixture, options: SourceOptions(minConfidence: 0))
    }

    /// The app's quaternion already has cloudgen's camera axes (its OdometryEncoder turns ARKit's):
    /// the pose is the simulator's own, not one turned a second time to look backwards.
    func testTheOdometryRotationIsTakenAsTheAppWritesIt() throws {
        let fixture = try StrayFixture(in: DatasetFixture.scratch(self))
        let frame = try XCTUnwrap(
            try SourceSpec(parsing: "stray:\(fixture.folder)").open(options: SourceOptions(minConfidence: 0)).nextFrame())
        let truth = PolycamFixture.arkitWorld(try XCTUnwrap(fixture.frames[0].pose))
        let (r, t) = (try XCTUnwrap(frame.pose).rotation, truth.rotation)
        for (a, b) in [(r.0, t.0), (r.1, t.1), (r.2, t.2)] {
            let d = a - b
            XCTAssertLessThan(max(abs(d.x), abs(d.y), abs(d.z)), 1e-9)
        }
        // The optical axis (third column) looks the same way as the simulator's camera.
        XCTAssertGreaterThan((SIMD3(r.0.z, r.1.z, r.2.z) * SIMD3(t.0.z, t.1.z, t.2.z)).sum(), 0.999)
    }

    func testMinConfidenceDropsExactlyThePixelsBelowIt() throws {
        let fixture = try StrayFixture(in: DatasetFixture.scratch(self))
        let w = fixture.frames[0].depth.width
        let byDefault = try SourceSpec(parsing: "stray:\(fixture.folder)").open()
        XCTAssertTrue(byDefault.warnings.contains { $0.message.contains("depth of low ARKit confidence dropped") }, "\(byDefault.warnings)")
        try assertFramesAreTheSimulatedFrames(fixture, dropped: { validDepthPixels(fixture.frames[$0], columns: 0..<(w / 4)) })
        try assertFramesAreTheSimulatedFrames(
            fixture, options: SourceOptions(minConfidence: 2),
            dropped: { validDepthPixels(fixture.frames[$0], columns: 0..<(w / 2)) })
        XCTAssertGreaterThan(validDepthPixels(fixture.frames[0], columns: 0..<(w / 4)), 1000, "the low quarter holds depth")
        try FileManager.default.removeItem(atPath: fixture.folder + "/confidence")
        let without = try SourceSpec(parsing: "stray:\(fixture.folder)").open()
        XCTAssertTrue(without.warnings.contains { $0.message.contains("no confidence/; every depth pixel is kept") }, "\(without.warnings)")
        try assertFramesAreTheSimulatedFrames(fixture)
        assertCloudError(.badInput, naming: fixture.folder, containing: "--min-confidence needs confidence/") {
            try SourceSpec(parsing: "stray:\(fixture.folder)").open(options: SourceOptions(minConfidence: 1))
        }
    }
}
