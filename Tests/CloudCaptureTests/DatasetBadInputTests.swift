import CloudCapture
import CloudCore
import Foundation
import XCTest

/// Bad datasets are `CloudError.badInput` (exit 2) with one line naming the file and the problem,
/// before any frame is delivered where the problem can be seen without decoding images.
final class DatasetBadInputTests: XCTestCase {
    func assertBadInput<T>(
        _ body: @autoclosure () throws -> T, naming file: String, _ fragment: String,
        sourceFile: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try body(), file: sourceFile, line: line) { error in
            guard let e = error as? CloudError else { return XCTFail("\(error) is not a CloudError", file: sourceFile, line: line) }
            XCTAssertEqual(e.kind, .badInput, e.message, file: sourceFile, line: line)
            XCTAssertTrue(e.message.contains(file), "'\(e.message)' does not name \(file)", file: sourceFile, line: line)
            XCTAssertTrue(e.message.contains(fragment), "'\(e.message)' lacks '\(fragment)'", file: sourceFile, line: line)
            XCTAssertFalse(e.message.contains("\n"), "message is not one line", file: sourceFile, line: line)
        }
    }

    /// A copy of the first `bytes` of a fixture: a file whose format is recognised but cut short.
    func truncated(_ fixture: String, to bytes: Int, at path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: fixture))
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.prefix(bytes).write(to: URL(fileURLWithPath: path))
    }

    // MARK: Missing and corrupt frame files

    func testTUMFrameFileMissingIsNamedWhenOpening() throws {
        let folder = try DatasetFixture.tumFixture(in: DatasetFixture.scratch(self))
        try DatasetFixture.write(
            "1305031102.160407 depth/1305031102.160407.png\n1305031102.194330 depth/gone.png\n",
            to: "\(folder)/depth.txt")
        assertBadInput(
            try DatasetFixture.open("tum:\(folder)"), naming: "\(folder)/depth/gone.png",
            "no such file (the depth image listed in \(folder)/depth.txt)")
    }

    func testRGBDImageMissingIsNamed() throws {
        let dir = try DatasetFixture.scratch(self)
        let options = SourceOptions(intrinsicsPath: DatasetFixture.primesense)
        assertBadInput(
            try DatasetFixture.open("rgbd:\(dir)/nope.png,\(DatasetFixture.otherFormats)/TUM_depth.png", options),
            naming: "\(dir)/nope.png", "no such file")
    }

    func testCorruptPNGIsNamedWhenItsFrameIsRead() throws {
        let dir = try DatasetFixture.scratch(self)
        let broken = "\(dir)/broken.png"
        try truncated("\(DatasetFixture.otherFormats)/TUM_depth.png", to: 300, at: broken)
        let folder = try DatasetFixture.tumFolder(
            in: dir, colors: [("1.000", "rgb/c.png")], depths: [("1.010", "depth/d.png")], depth: broken)
        let source = try DatasetFixture.open("tum:\(folder)")
        assertBadInput(try source.nextFrame(), naming: "\(folder)/depth/d.png", "cannot decode PNG")
    }

    func testCorruptJPEGIsNamedWhenItsFrameIsRead() throws {
        let dir = try DatasetFixture.scratch(self)
        let folder = try DatasetFixture.redwoodFolder(in: dir, frames: 1..<2, trajectory: nil)
        try truncated("\(DatasetFixture.rgbd)/color/00000.jpg", to: 3000, at: "\(folder)/color/00000.jpg")
        try DatasetFixture.link("\(DatasetFixture.rgbd)/depth/00000.png", at: "\(folder)/depth/00000.png")
        let source = try DatasetFixture.open("redwood:\(folder)")
        assertBadInput(try source.nextFrame(), naming: "\(folder)/color/00000.jpg", "cannot decode JPEG")
    }

    func testCorruptTIFFIsNamedWhenItsFrameIsRead() throws {
        let data = DatasetFixture.path("pcl-grabber")
        let dir = try DatasetFixture.scratch(self)
        let name = "frame_20121214T142255.814212"
        try DatasetFixture.link("\(data)/\(name).xml", at: "\(dir)/\(name).xml")
        try DatasetFixture.link("\(data)/\(name)_rgb.tiff", at: "\(dir)/\(name)_rgb.tiff")
        try truncated("\(data)/\(name)_depth.tiff", to: 4096, at: "\(dir)/\(name)_depth.tiff")
        let source = try DatasetFixture.open("pclgrabber:\(dir)")
        assertBadInput(try source.nextFrame(), naming: "\(dir)/\(name)_depth.tiff", "cannot decode TIFF")
    }

    func testAnEightBitImageIsNotDepth() throws {
        let f = DatasetFixture.otherFormats
        assertBadInput(
            try DatasetFixture.open("rgbd:\(f)/TUM_color.png,\(f)/TUM_color.png", SourceOptions(intrinsicsPath: DatasetFixture.primesense)),
            naming: "\(f)/TUM_color.png", "depth must be a 16-bit single-channel image, this is 8-bit with 3 channels")
    }

    func testNYUEncodingRefusesDepthThatIsNotKinectDisparity() throws {
        let f = DatasetFixture.otherFormats
        let options = SourceOptions(intrinsicsPath: DatasetFixture.primesense, depthEncoding: .nyu)
        assertBadInput(
            try DatasetFixture.open("rgbd:\(f)/TUM_color.png,\(f)/TUM_depth.png", options),
            naming: "\(f)/TUM_depth.png", "--depth-encoding nyu expects NYU Depth v2's raw Kinect disparity")
    }

    // MARK: Sequences that do not fit together

    func testAssociationGapNamesTheDepthFileAndTheGap() throws {
        let folder = try DatasetFixture.tumFolder(
            in: DatasetFixture.scratch(self),
            colors: [("1305031102.175304", "rgb/a.png"), ("1305031102.275304", "rgb/b.png")],
            depths: [("1305031102.160407", "depth/a.png"), ("1305031102.225304", "depth/b.png")])
        // depth/b.png is 50 ms from either color frame.
        assertBadInput(
            try DatasetFixture.open("tum:\(folder)"), naming: "\(folder)/depth/b.png",
            "association gap: the nearest color frame (\(folder)/rgb/a.png) is 50.0 ms away; tum: pairs depth and color within 20 ms")
    }

    func testAGapOfExactly20MillisecondsIsStillAPair() throws {
        let folder = try DatasetFixture.tumFolder(
            in: DatasetFixture.scratch(self), colors: [("1305031102.180407", "rgb/a.png")],
            depths: [("1305031102.160407", "depth/a.png")])
        XCTAssertEqual(try DatasetFixture.open("tum:\(folder)").frameCount, 1)
    }

    func testTrajectoryWithTheWrongNumberOfPosesIsRefused() throws {
        let log = try String(contentsOfFile: "\(DatasetFixture.rgbd)/trajectory.log", encoding: .utf8)
        let fourPoses = log.split(separator: "\n").prefix(20).joined(separator: "\n") + "\n"
        let folder = try DatasetFixture.redwoodFolder(in: DatasetFixture.scratch(self), trajectory: fourPoses)
        assertBadInput(try DatasetFixture.open("redwood:\(folder)"), naming: "\(folder)/trajectory.log", "4 poses for 5 frames")
    }

    func testRedwoodLayoutProblemsNameWhatIsMissing() throws {
        let dir = try DatasetFixture.scratch(self)
        let folder = try DatasetFixture.redwoodFolder(in: dir, frames: 0..<3, trajectory: nil)
        try FileManager.default.removeItem(atPath: "\(folder)/depth/00002.png")
        assertBadInput(try DatasetFixture.open("redwood:\(folder)"), naming: "redwood:\(folder)", "color/ holds 3 images and depth/ 2")

        try FileManager.default.removeItem(atPath: "\(folder)/camera_primesense.json")
        try DatasetFixture.link("\(DatasetFixture.rgbd)/depth/00002.png", at: "\(folder)/depth/00002.png")
        assertBadInput(
            try DatasetFixture.open("redwood:\(folder)"), naming: "redwood:\(folder)",
            "no camera_intrinsic.json or camera_primesense.json in the folder; pass --intrinsics FILE")

        try FileManager.default.removeItem(atPath: "\(folder)/depth")
        assertBadInput(try DatasetFixture.open("redwood:\(folder)"), naming: "redwood:\(folder)", "no depth/ folder")
        assertBadInput(try DatasetFixture.open("redwood:\(dir)/elsewhere"), naming: "\(dir)/elsewhere", "no such folder")
    }

    func testTUMIndexProblemsAreNamed() throws {
        let folder = try DatasetFixture.tumFixture(in: DatasetFixture.scratch(self))
        try DatasetFixture.write("# color\n1305031102.175304 rgb/1305031102.175304.png\nsoon rgb/x.png\n", to: "\(folder)/rgb.txt")
        assertBadInput(try DatasetFixture.open("tum:\(folder)"), naming: "\(folder)/rgb.txt", "line 3: expected 'timestamp filename'")
        try FileManager.default.removeItem(atPath: "\(folder)/rgb.txt")
        assertBadInput(try DatasetFixture.open("tum:\(folder)"), naming: "\(folder)/rgb.txt", "no such file")
    }

    func testPCLGrabberFramesNeedTheirCalibrationAndAllOrNoneTheirColor() throws {
        let data = DatasetFixture.path("pcl-grabber")
        let dir = try DatasetFixture.scratch(self)
        let (a, b) = ("frame_20121214T142255.814212", "frame_20121214T142256.068683")
        for name in ["\(a)_depth.pclzf", "\(a)_rgb.pclzf", "\(b).xml", "\(b)_depth.pclzf"] {
            try DatasetFixture.link("\(data)/\(name)", at: "\(dir)/\(name)")
        }
        assertBadInput(
            try DatasetFixture.open("pclgrabber:\(dir)"), naming: "\(dir)/\(b)_rgb.pclzf", "no such file; 1 of the 2 frames have color")
        try DatasetFixture.link("\(data)/\(b)_rgb.pclzf", at: "\(dir)/\(b)_rgb.pclzf")
        assertBadInput(try DatasetFixture.open("pclgrabber:\(dir)"), naming: "\(dir)/\(a).xml", "or pass --intrinsics FILE")
        // With --intrinsics the XML is not needed, and replacing the XMLs there are is announced.
        let given = try DatasetFixture.open("pclgrabber:\(dir)", SourceOptions(intrinsicsPath: "\(data)/\(b).xml"))
        XCTAssertEqual(given.frameCount, 2)
        XCTAssertEqual(
            given.warnings.map(\.message), ["pclgrabber:\(dir): using --intrinsics \(data)/\(b).xml instead of each frame's XML"])

        let empty = try DatasetFixture.scratch(self)
        assertBadInput(
            try DatasetFixture.open("pclgrabber:\(empty)"), naming: "pclgrabber:\(empty)", "no *_depth.pclzf or *_depth.tiff files")
    }

    // MARK: Flags

    func testFlagsAKindCannotUseAreRefused() throws {
        let f = DatasetFixture.otherFormats
        let k = DatasetFixture.primesense
        assertBadInput(
            try SourceSpec(parsing: "tum:x").open(options: SourceOptions(depthEncoding: .sun)),
            naming: "--depth-encoding", "does not apply to tum: sources")
        assertBadInput(
            try SourceSpec(parsing: "synthetic").open(options: SourceOptions(intrinsicsPath: k)),
            naming: "--intrinsics", "does not apply to synthetic: sources")
        assertBadInput(
            try SourceSpec(parsing: "rgbd:a,b").open(
                options: SourceOptions(intrinsicsPath: k, depthUnitsPerMetre: 1000, depthEncoding: .nyu)),
            naming: "--depth-scale", "does not apply to --depth-encoding nyu")
        assertBadInput(
            try SourceSpec(parsing: "rgbd:a,b").open(options: SourceOptions(intrinsicsPath: k, depthUnitsPerMetre: -5)),
            naming: "--depth-scale", "must be a positive number")
        assertBadInput(
            try SourceSpec(parsing: "rgbd:\(f)/TUM_color.png,\(f)/TUM_depth.png").open(),
            naming: "rgbd:\(f)/TUM_color.png,\(f)/TUM_depth.png", "needs --intrinsics FILE")
    }
}

extension DatasetBadInputTests {
    /// A TUM list names images inside its folder: an absolute path or a ".." part is refused, not
    /// followed (a list received from elsewhere must not make us read other files).
    func testTUMListsNameFilesInsideTheFolder() throws {
        let folder = try DatasetFixture.tumFixture(in: DatasetFixture.scratch(self))
        for name in ["/etc/passwd", "../outside.png", "depth/../../outside.png"] {
            try DatasetFixture.write("1305031102.160407 \(name)\n", to: "\(folder)/depth.txt")
            assertBadInput(
                try DatasetFixture.open("tum:\(folder)"), naming: "\(folder)/depth.txt",
                "line 1: '\(name)' is not a path inside the sequence's folder")
        }
    }
}
