import CloudCore
import Foundation
import SharedTestData
import XCTest

@testable import CloudCapture

/// Shared by the Dataset*Tests: the real frames in ../shared/data, scratch folders laid out like
/// the datasets, and the cloud a source's frames give.
enum DatasetFixture {
    /// `../shared/data/<relative>` beside the package root; a test that needs it fails without it.
    static func path(_ relative: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        SharedData.path(relative, file: file, line: line)
    }

    static var rgbd: String { path("open3d-rgbd") }
    static var otherFormats: String { path("open3d-rgbd/other_formats") }
    static var primesense: String { path("open3d-rgbd/camera_primesense.json") }

    /// A fresh folder, removed when the test ends.
    static func scratch(_ test: XCTestCase) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cloudgen-dataset-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        test.addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir.path
    }

    static func link(_ target: String, at path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
    }

    static func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// A TUM sequence folder: `rgb.txt` and `depth.txt` list the given (timestamp, file) entries
    /// under TUM's comment header, each file a link to `color` or `depth`.
    static func tumFolder(
        in dir: String, colors: [(String, String)], depths: [(String, String)],
        color: String? = nil, depth: String? = nil
    ) throws -> String {
        let color = color ?? "\(otherFormats)/TUM_color.png"
        let depth = depth ?? "\(otherFormats)/TUM_depth.png"
        let folder = "\(dir)/tum"
        func list(_ name: String, _ entries: [(String, String)], _ target: String) throws {
            var text = "# \(name)\n# file: 'rgbd_dataset_freiburg1_xyz.bag'\n# timestamp filename\n"
            for (t, file) in entries {
                text += "\(t) \(file)\n"
                if !FileManager.default.fileExists(atPath: "\(folder)/\(file)") { try link(target, at: "\(folder)/\(file)") }
            }
            try write(text, to: "\(folder)/\(name).txt")
        }
        try list("rgb", colors, color)
        try list("depth", depths, depth)
        return folder
    }

    /// The one-frame TUM sequence Tools/compare builds: color 14.9 ms after depth.
    static func tumFixture(in dir: String) throws -> String {
        try tumFolder(
            in: dir, colors: [("1305031102.175304", "rgb/1305031102.175304.png")],
            depths: [("1305031102.160407", "depth/1305031102.160407.png")])
    }

    /// A Redwood folder of links to the fixture's frames; `frames` of the five, `trajectory` the
    /// text of trajectory.log (nil: none).
    static func redwoodFolder(in dir: String, frames: Range<Int> = 0..<5, trajectory: String?) throws -> String {
        let folder = "\(dir)/redwood"
        for i in frames {
            let name = String(format: "%05d", i)
            try link("\(rgbd)/color/\(name).jpg", at: "\(folder)/color/\(name).jpg")
            try link("\(rgbd)/depth/\(name).png", at: "\(folder)/depth/\(name).png")
        }
        try link(primesense, at: "\(folder)/camera_primesense.json")
        if let trajectory { try write(trajectory, to: "\(folder)/trajectory.log") }
        return folder
    }

    static func open(_ spec: String, _ options: SourceOptions = SourceOptions()) throws -> DatasetSource {
        let source = try SourceSpec(parsing: spec).open(options: options)
        guard let dataset = source as? DatasetSource else {
            throw CloudError.badInput("\(spec) did not open a dataset source")
        }
        return dataset
    }

    /// Every frame of the source back-projected (placed by its pose with `world`) and concatenated:
    /// what `cloudgen capture --frames all [--fuse]` computes.
    static func cloud(_ source: DatasetSource, range: ClosedRange<Float>? = nil, world: Bool = false) throws -> PointCloud {
        var positions: [Float] = []
        var colors: [UInt8] = []
        while let captured = try source.nextFrame() {
            let frame = try RGBDFrame(decoding: captured, origin: source.name, colorAtDepthResolution: true)
            var (cloud, _) = try BackProjection(options: .init(range: range)).run(frame)
            if world {
                let pose = try XCTUnwrap(frame.pose, "\(source.name): frame without a pose")
                pose.transform(positions: &cloud.positions)
            }
            positions += cloud.positions
            colors += try XCTUnwrap(cloud.colors, "\(source.name): frame without color")
        }
        return PointCloud(positions: positions, colors: colors)
    }
}

/// How the dataset sources find, pair, order and describe their frames.
final class DatasetSourceTests: XCTestCase {
    func testTUMPairsEachDepthFrameWithTheNearestColorFrame() throws {
        let dir = try DatasetFixture.scratch(self)
        // Depth at 30 Hz against color at 20 Hz, listed out of order: the second color frame
        // serves two depth frames, and a tie (10 ms either side) goes to the earlier one.
        let folder = try DatasetFixture.tumFolder(
            in: dir,
            colors: [("100.050000", "rgb/c2.png"), ("100.000000", "rgb/c1.png"), ("100.100000", "rgb/c3.png")],
            depths: [
                ("100.005000", "depth/d1.png"), ("100.040000", "depth/d2.png"), ("100.060000", "depth/d3.png"),
                ("100.090000", "depth/d4.png")
            ])
        let source = try XCTUnwrap(DatasetFixture.open("tum:\(folder)") as? TUMSource)
        XCTAssertEqual(source.frameCount, 4)
        XCTAssertEqual(source.pairs.map { ($0.depth.path as NSString).lastPathComponent }, ["d1.png", "d2.png", "d3.png", "d4.png"])
        XCTAssertEqual(source.pairs.map { ($0.color.path as NSString).lastPathComponent }, ["c1.png", "c2.png", "c2.png", "c3.png"])
        XCTAssertEqual(source.pairs[0].depth.path, "\(folder)/depth/d1.png")
        XCTAssertEqual(source.pairs.map(\.gap).max()!, 0.010, accuracy: 1e-6)

        var timestamps: [Double] = []
        while let frame = try source.nextFrame() {
            timestamps.append(frame.timestamp)
            XCTAssertEqual(frame.depth.encoding, .uint16(unitsPerMetre: 5000))
            XCTAssertEqual(frame.intrinsics, TUMSource.defaultIntrinsics)
            XCTAssertNil(frame.pose)
        }
        XCTAssertEqual(timestamps, [100.005, 100.04, 100.06, 100.09])
        XCTAssertFalse(source.knowsPose)
    }

    func testTUMSaysWhenItAssumesTheDefaultIntrinsicsAndNotOtherwise() throws {
        let folder = try DatasetFixture.tumFixture(in: DatasetFixture.scratch(self))
        let assumed = try DatasetFixture.open("tum:\(folder)")
        XCTAssertEqual(assumed.warnings.count, 1)
        XCTAssertTrue(
            assumed.warnings[0].message.contains(
                "intrinsics assumed to be TUM's default (fx = fy = 525, cx = 319.5, cy = 239.5 at 640x480)"),
            assumed.warnings[0].message)

        let given = try DatasetFixture.open(
            "tum:\(folder)", SourceOptions(intrinsicsPath: DatasetFixture.primesense, depthUnitsPerMetre: 1000))
        XCTAssertEqual(given.warnings, [])
        let frame = try XCTUnwrap(given.nextFrame())
        XCTAssertEqual(frame.depth.encoding, .uint16(unitsPerMetre: 1000))
        XCTAssertEqual(
            frame.intrinsics, CameraIntrinsics(fx: 525, fy: 525, cx: 319.5, cy: 239.5, referenceWidth: 640, referenceHeight: 480))
    }

    func testRedwoodDeliversTheTrajectoryPosesInFrameOrder() throws {
        let source = try DatasetFixture.open("redwood:\(DatasetFixture.rgbd)")
        XCTAssertTrue(source.knowsPose)
        XCTAssertEqual(source.frameCount, 5)
        XCTAssertEqual(source.warnings, [])
        // Frame 0's pose, as trajectory.log writes it.
        let first = try XCTUnwrap(source.nextFrame())
        let pose = try XCTUnwrap(first.pose)
        XCTAssertEqual(pose.rotation.0, SIMD3(-0.2739592186924325, 0.021819345900466677, -0.9614937663021573))
        XCTAssertEqual(pose.translation.x, -0.31057997014702826)
        XCTAssertEqual(first.timestamp, 0)
        XCTAssertEqual(first.depth.encoding, .uint16(unitsPerMetre: 1000))
        XCTAssertEqual(first.color?.layout, .rgb8)
        var count = 1
        while let frame = try source.nextFrame() {
            // A Redwood folder holds no times: frames are timed at 30 a second, Kinect-class cameras' rate.
            XCTAssertEqual(frame.timestamp, Double(count) / 30)
            XCTAssertNotNil(frame.pose)
            count += 1
        }
        XCTAssertEqual(count, 5)
    }

    func testRedwoodWithoutTrajectoryHasNoPosesAndIntrinsicsFlagWinsWithANote() throws {
        let folder = try DatasetFixture.redwoodFolder(in: DatasetFixture.scratch(self), frames: 0..<2, trajectory: nil)
        let plain = try DatasetFixture.open("redwood:\(folder)")
        XCTAssertFalse(plain.knowsPose)
        XCTAssertNil(try plain.nextFrame()?.pose)

        let dir = try DatasetFixture.scratch(self)
        let custom = "\(dir)/k.json"
        try DatasetFixture.write(#"{"fx": 500, "fy": 501, "cx": 320, "cy": 240, "width": 640, "height": 480}"#, to: custom)
        let flagged = try DatasetFixture.open("redwood:\(folder)", SourceOptions(intrinsicsPath: custom))
        XCTAssertEqual(
            flagged.warnings.map(\.message), ["redwood:\(folder): using --intrinsics \(custom) instead of \(folder)/camera_primesense.json"]
        )
        XCTAssertEqual(try flagged.nextFrame()?.intrinsics.fx, 500)
    }

    func testPCLGrabberPrefersThePCLZFPairAndOrdersFramesByName() throws {
        let data = DatasetFixture.path("pcl-grabber")
        let both = try XCTUnwrap(DatasetFixture.open("pclgrabber:\(data)") as? PCLGrabberSource)
        XCTAssertEqual(both.frames.map(\.name), ["frame_20121214T142255.814212", "frame_20121214T142256.068683"])
        XCTAssertEqual(both.frames.map(\.storage), [.pclzf, .pclzf])
        XCTAssertEqual(both.warnings, [])

        // One frame left with only its TIFF pair: the choice is per frame.
        let dir = try DatasetFixture.scratch(self)
        for name in [
            "frame_20121214T142255.814212.xml", "frame_20121214T142255.814212_depth.tiff", "frame_20121214T142255.814212_rgb.tiff",
            "frame_20121214T142256.068683.xml", "frame_20121214T142256.068683_depth.pclzf", "frame_20121214T142256.068683_rgb.pclzf"
        ] {
            try DatasetFixture.link("\(data)/\(name)", at: "\(dir)/\(name)")
        }
        let mixed = try XCTUnwrap(DatasetFixture.open("pclgrabber:\(dir)") as? PCLGrabberSource)
        XCTAssertEqual(mixed.frames.map(\.storage), [.tiff, .pclzf])
        XCTAssertEqual(mixed.frames[0].colorPath, "\(dir)/frame_20121214T142255.814212_rgb.tiff")
        let frame = try XCTUnwrap(mixed.nextFrame())
        XCTAssertEqual(frame.intrinsics, CameraIntrinsics(fx: 525, fy: 525, cx: 320, cy: 240, referenceWidth: 640, referenceHeight: 480))
        XCTAssertEqual(frame.depth.encoding, .uint16(unitsPerMetre: 1000))
    }

    /// The grabber names frames by their capture time: the frames are timed by it (seconds, as if
    /// UTC), so that a stream pushes the recording at its pace; other names are timed at 30 a second.
    func testPCLGrabberFramesAreTimedByTheirNames() throws {
        let source = try DatasetFixture.open("pclgrabber:\(DatasetFixture.path("pcl-grabber"))")
        let first = try XCTUnwrap(source.nextFrame())
        let second = try XCTUnwrap(source.nextFrame())
        // Python: datetime(2012, 12, 14, 14, 22, 55, 814212, tzinfo=timezone.utc).timestamp()
        XCTAssertEqual(first.timestamp, 1_355_494_975.814_212, accuracy: 1e-6)
        XCTAssertEqual(second.timestamp - first.timestamp, 0.254_471, accuracy: 1e-6)

        XCTAssertEqual(PCLGrabberTimes.seconds(name: "frame_19700101T000001"), 1)
        XCTAssertEqual(PCLGrabberTimes.seconds(name: "frame_20000229T235959.5"), 951_868_799.5)
        for odd in [
            "frame_20121214T142255.", "frame_20121314T142255", "frame_2012121T4142255", "scan_20121214T142255", "frame_20121214T14225x"
        ] {
            XCTAssertNil(PCLGrabberTimes.seconds(name: odd), odd)
        }
        XCTAssertEqual(PCLGrabberTimes.seconds(names: ["a", "frame_19700101T000001"]), [0, 1.0 / 30])
        XCTAssertEqual(PCLGrabberTimes.seconds(names: ["frame_19700101T000002", "frame_19700101T000001"]), [0, 1.0 / 30])
    }

    /// A depth image and a smaller color image of one camera: each point back-projects through the
    /// intrinsics scaled from their 640x480 reference to the depth image, and takes the color of
    /// the color pixel whose footprint holds its depth pixel's centre. Written as PGM/PPM so the
    /// ground truth is plain.
    func testColorOfAnotherSizeIsSampledOverTheSameSpotOfTheView() throws {
        let dir = try DatasetFixture.scratch(self)
        let (dw, dh, cw, ch) = (8, 6, 4, 3)
        // Depth: 1000 + 10 * pixel index millimetres, 16-bit big-endian PGM.
        var pgm = Array("P5\n\(dw) \(dh)\n65535\n".utf8)
        for i in 0..<(dw * dh) {
            let mm = UInt16(1000 + 10 * i)
            pgm += [UInt8(mm >> 8), UInt8(mm & 0xFF)]
        }
        // Color: each pixel its own color, r = 20 x, g = 20 y, b = 7.
        var ppm = Array("P6\n\(cw) \(ch)\n255\n".utf8)
        for y in 0..<ch { for x in 0..<cw { ppm += [UInt8(20 * x), UInt8(20 * y), 7] } }
        try Data(pgm).write(to: URL(fileURLWithPath: "\(dir)/d.pgm"))
        try Data(ppm).write(to: URL(fileURLWithPath: "\(dir)/c.ppm"))
        try DatasetFixture.write(#"{"fx": 600, "fy": 580, "cx": 330.25, "cy": 236.5, "width": 640, "height": 480}"#, to: "\(dir)/k.json")

        let source = try DatasetFixture.open("rgbd:\(dir)/c.ppm,\(dir)/d.pgm", SourceOptions(intrinsicsPath: "\(dir)/k.json"))
        XCTAssertEqual(source.warnings.count, 1, "the assumed depth scale is announced")
        XCTAssertTrue(source.warnings[0].message.contains("depth scale assumed to be 1000 units per metre"), source.warnings[0].message)
        let cloud = try DatasetFixture.cloud(source)
        XCTAssertEqual(cloud.count, dw * dh)
        // Intrinsics at 8x6: the pixel edges -0.5 and 639.5 map onto -0.5 and 7.5.
        let s = 8.0 / 640.0
        let (fx, fy, cx, cy) = (600 * s, 580 * s, (330.25 + 0.5) * s - 0.5, (236.5 + 0.5) * s - 0.5)
        for v in 0..<dh {
            for u in 0..<dw {
                let i = v * dw + u
                let z = Double(1000 + 10 * i) / 1000
                let p = cloud.point(i)
                XCTAssertEqual(Double(p.x), (Double(u) - cx) * z / fx, accuracy: 1e-6)
                XCTAssertEqual(Double(p.y), (Double(v) - cy) * z / fy, accuracy: 1e-6)
                XCTAssertEqual(Double(p.z), z, accuracy: 1e-6)
                // Depth pixel u covers [u, u + 1) / 8 of the width; its centre lies in color pixel u / 2.
                XCTAssertEqual(cloud.color(i), SIMD3(UInt8(20 * (u / 2)), UInt8(20 * (v / 2)), 7), "pixel (\(u), \(v))")
            }
        }
    }

    func testSUNAndNYUDepthDecodeToOpen3DsMillimetres() throws {
        // SUN: the stored sample is the millimetres rotated left by 3 bits.
        let sun = try DatasetFixture.open(
            "rgbd:\(DatasetFixture.otherFormats)/SUN_color.jpg,\(DatasetFixture.otherFormats)/SUN_depth.png",
            SourceOptions(intrinsicsPath: DatasetFixture.primesense, depthEncoding: .sun))
        XCTAssertEqual(sun.warnings, [])
        let sunFrame = try XCTUnwrap(sun.nextFrame())
        XCTAssertEqual(sunFrame.depth.encoding, .uint16(unitsPerMetre: 1000))
        let millimetres = sunFrame.depth.data.withUnsafeBytes { raw in
            (0..<(raw.count / 2)).map { UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self)) }
        }
        XCTAssertEqual(millimetres.max(), 9870)
        XCTAssertNil(try sun.nextFrame(), "rgbd: is one frame")

        let nyu = try DatasetFixture.open(
            "rgbd:\(DatasetFixture.otherFormats)/NYU_color.ppm,\(DatasetFixture.otherFormats)/NYU_depth.pgm",
            SourceOptions(intrinsicsPath: DatasetFixture.primesense, depthEncoding: .nyu))
        let nyuFrame = try XCTUnwrap(nyu.nextFrame())
        XCTAssertEqual(nyuFrame.depth.encoding, .depthFloat32)
        let metres = nyuFrame.depth.data.withUnsafeBytes { raw in
            (0..<(raw.count / 4)).map {
                Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self)))
            }
        }
        // Kinect's "no reading" (2047) is no depth; every other depth is whole millimetres.
        XCTAssertEqual(metres.filter { $0 == 0 }.count, 22199)
        XCTAssertEqual(metres.max(), 6.691)
        XCTAssertTrue(metres.allSatisfy { $0 == Float(($0 * 1000).rounded()) / 1000 })
    }
}
