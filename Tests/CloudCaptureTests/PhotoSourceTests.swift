import CloudCapture
import CloudCore
import CloudImages
import Foundation
import SafeIO
import SharedTestData
import XCTest

/// `photo:FILE` on the two real iPhone photos in ../shared/data/phone, checked against what the
/// files' own metadata says and against libheif's own tool, and on portrait JPEGs written from a
/// simulated frame (DepthPhotoFixture), whose every depth is known.
final class PhotoSourceTests: XCTestCase {
    private func phone(_ name: String) throws -> String {
        try sharedDataDirectory().appendingPathComponent("phone/\(name)").path
    }

    private func open(_ path: String, _ options: SourceOptions = SourceOptions()) throws -> (PhotoSource, CapturedFrame) {
        let opened = try SourceSpec(parsing: "photo:\(path)").open(options: options)
        let source = try XCTUnwrap(opened as? PhotoSource)
        let frame = try XCTUnwrap(try source.nextFrame())
        XCTAssertNil(try source.nextFrame(), "a photo is one frame")
        return (source, frame)
    }

    private func disparities(_ frame: CapturedFrame) -> [Float] {
        frame.depth.data.withUnsafeBytes { raw in
            (0..<(frame.depth.width * frame.depth.height)).map {
                Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self)))
            }
        }
    }

    // MARK: The real photos

    /// pug.heic (iPhone 13 Pro): its depth item's XMP gives the intrinsics at 4032x3024, the
    /// disparity range 1.498047...4.382812 1/m, relative accuracy and a lens; libheif's own depth
    /// representation gives the same range.
    func testHEICIntrinsicsRangeAndAccuracyAreWhatItsMetadataSays() throws {
        let (source, frame) = try open(try phone("pug.heic"))
        XCTAssertEqual(
            frame.intrinsics,
            CameraIntrinsics(
                fx: 3032.59423828125, fy: 3032.59423828125, cx: 1988.450927734375,
                cy: 1512.30712890625, referenceWidth: 4032, referenceHeight: 3024))
        XCTAssertEqual([frame.depth.width, frame.depth.height], [768, 576])
        XCTAssertEqual([frame.color?.width, frame.color?.height], [4032, 3024])
        XCTAssertEqual(frame.depth.encoding, .disparityFloat32)
        XCTAssertEqual(frame.depth.accuracy, .relative)
        XCTAssertTrue(frame.depth.isFiltered)
        let values = disparities(frame)
        XCTAssertGreaterThanOrEqual(values.min()!, 1.498047 - 1e-6)
        XCTAssertLessThanOrEqual(values.max()!, 4.382812 + 1e-6)
        let lens = try XCTUnwrap(frame.distortion)
        XCTAssertEqual(lens.center, SIMD2(1990.331298828125, 1515.205078125))
        XCTAssertEqual(lens.lookupTable.count, 42)
        // -1.6 % at the corners, and the inverse undoes it.
        XCTAssertEqual(lens.lookupTable.last!, -0.0163, accuracy: 0.0005)
        XCTAssertTrue(
            source.warnings.contains { $0.message.contains("relative") && $0.message.contains("--known-distance") }, "\(source.warnings)")

        let heif = try HEIFPhoto(InputFile.readAll(try phone("pug.heic")), withMatte: false, origin: "pug.heic")
        let representation = try XCTUnwrap(heif.depthRepresentation)
        XCTAssertEqual(representation.dMin ?? .nan, 1.498047, accuracy: 1e-3)
        XCTAssertEqual(representation.dMax ?? .nan, 4.382812, accuracy: 1e-3)
    }

    /// The depth values are libheif's own decoding of the depth item: heif-convert (libheif's
    /// tool, Debian's libheif-examples) writes it as a PNG, whose every 8-bit value maps onto
    /// the frame's disparity.
    func testHEICDepthEqualsHeifConvertsDecodingOfTheDepthItem() throws {
        let dir = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tool = Process()
        tool.executableURL = URL(fileURLWithPath: "/usr/bin/heif-convert")
        tool.arguments = ["--quiet", "--with-aux", "--no-colons", try phone("pug.heic"), dir.appendingPathComponent("pug.png").path]
        try tool.run()
        tool.waitUntilExit()
        XCTAssertEqual(tool.terminationStatus, 0)
        let reference = try ImageFile.read(dir.appendingPathComponent("pug-depth.png").path)
        guard case .uint8(let samples) = reference.samples else { return XCTFail("heif-convert wrote a 16-bit depth PNG") }
        // heif-convert writes the gray depth as RGB, three equal samples a pixel.
        XCTAssertEqual([reference.width, reference.height, reference.channels], [768, 576, 3])
        let pixels = stride(from: 0, to: samples.count, by: 3)
        let stored: [UInt8] = pixels.map { samples[$0] }
        let gray = pixels.allSatisfy { (i: Int) -> Bool in samples[i] == samples[i + 1] && samples[i] == samples[i + 2] }
        XCTAssertTrue(gray)
        let (_, frame) = try open(try phone("pug.heic"))
        let expected = stored.map { Float(1.498047 + Double($0) / 255 * (4.382812 - 1.498047)) }
        let worst = zip(disparities(frame), expected).map { abs($0 - $1) }.max()!
        XCTAssertLessThan(worst, 1e-5, "largest difference from heif-convert's depth (1/m)")
    }

    /// iphonex-portrait-depth.jpg (iPhone X): the depth is the second MPF image, at byte
    /// 2,570,521, 576x768, with its own XMP: intrinsics at 3024x4032, range 0.650879...2.509766.
    func testJPEGDepthIsTheSecondMultiPictureImageWithItsOwnMetadata() throws {
        let path = try phone("iphonex-portrait-depth.jpg")
        let bytes = try InputFile.readAll(path)
        let index = try XCTUnwrap(try MultiPictureIndex(bytes, segments: JPEGSegments(bytes, origin: path), origin: path))
        XCTAssertEqual(index.images.count, 2)
        XCTAssertEqual(index.images[1].lowerBound, 2_570_521)
        XCTAssertEqual(index.images[1].upperBound, bytes.count)

        let (_, frame) = try open(path)
        XCTAssertEqual(
            frame.intrinsics,
            CameraIntrinsics(
                fx: 6112.78125, fy: 6112.78125, cx: 1524.835693359375, cy: 2027.0889892578125,
                referenceWidth: 3024, referenceHeight: 4032))
        XCTAssertEqual([frame.depth.width, frame.depth.height, frame.color?.width, frame.color?.height], [576, 768, 3024, 4032])
        XCTAssertEqual(frame.depth.accuracy, .relative)
        // The depth image decoded straight from its byte range, mapped as the XMP says.
        let direct = try bytes[index.images[1]].withUnsafeBytes { try ImageFile.decode($0, origin: "depth") }
        guard case .uint8(let stored) = direct.samples else { return XCTFail("the depth JPEG is not 8-bit") }
        let expected = stored.map { Float(0.650879 + Double($0) / 255 * (2.509766 - 0.650879)) }
        XCTAssertLessThan(zip(disparities(frame), expected).map { abs($0 - $1) }.max()!, 1e-5)
        // +0.4 % pincushion at the corners of the telephoto lens.
        XCTAssertEqual(try XCTUnwrap(frame.distortion).lookupTable.last!, 0.0011, accuracy: 0.0005)
    }

    /// Apple's polynomials, read as percent over millimetres on the sensor, undo each other: a
    /// point distorted by the forward table and rectified by the inverse one comes back to within
    /// 3 % of the distortion, over the whole of both real photos.
    func testTheLensPolynomialsOfBothPhotosInvertEachOther() throws {
        for name in ["pug.heic", "iphonex-portrait-depth.jpg"] {
            let lens = try XCTUnwrap(try open(try phone(name)).1.distortion)
            for f in stride(from: 0.1, through: 1.0, by: 0.1) {
                let p = lens.center + SIMD2(f * lens.maxRadius * 0.6, f * lens.maxRadius * 0.8)
                let moved = lens.distort(p)
                let back = lens.rectify(moved)
                let shift = ((moved - p) * (moved - p)).sum().squareRoot()
                let error = ((back - p) * (back - p)).sum().squareRoot()
                XCTAssertLessThanOrEqual(error, 0.03 * shift + 1e-6, "\(name) at \(f) of the radius: shift \(shift) px, error \(error) px")
            }
        }
    }

    /// The vase in the iPhone X photo is a compact surface in front of the background: the depths
    /// under the middle of the picture form one layer, clearly nearer than the wall at the top
    /// corners, with a gap between them that no pixel fills.
    func testTheJPEGsSubjectStandsInFrontOfItsBackground() throws {
        let (_, frame) = try open(try phone("iphonex-portrait-depth.jpg"))
        let depth = try RGBDFrame(decoding: frame, origin: "x").depth
        let (w, h) = (depth.width, depth.height)
        func depths(_ xs: Range<Int>, _ ys: Range<Int>) -> [Float] {
            ys.flatMap { y in xs.map { depth.metres[y * w + $0] } }.filter { $0 > 0 && $0.isFinite }.sorted()
        }
        let vase = depths((w * 2 / 5)..<(w * 3 / 5), (h * 2 / 5)..<(h / 2))
        let wall = depths(0..<(w / 10), 0..<(h / 10)) + depths((w * 9 / 10)..<w, 0..<(h / 10))
        let vaseFar = vase[vase.count * 99 / 100]
        let wallNear = wall.sorted()[wall.count / 100]
        XCTAssertLessThan(vase.last! - vase.first!, 0.25 * vase[vase.count / 2], "the vase's middle is one compact layer")
        XCTAssertGreaterThan(wallNear - vaseFar, 0.2 * vaseFar, "the background lies well behind the subject")
    }

    // MARK: Portrait JPEGs written from the simulated room

    /// The cloud of a metric portrait JPEG is the simulated frame's, to the 8-bit disparity's
    /// resolution: depths within half a step of their true values but where the JPEG that holds
    /// them (quality 100, as the fixture writes) rings at the room's edges.
    func testAPortraitJPEGGivesTheSimulatedDepthToItsQuantization() throws {
        let dir = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fixture = try DepthPhotoFixture(in: dir.path)
        let (source, frame) = try open(fixture.path)
        XCTAssertEqual(frame.depth.accuracy, .absolute)
        XCTAssertEqual(frame.intrinsics, fixture.frame.intrinsics)
        XCTAssertFalse(source.warnings.contains { $0.message.contains("relative") })
        try assertDepthMatches(frame, fixture)
    }

    private func assertDepthMatches(
        _ frame: CapturedFrame, _ fixture: DepthPhotoFixture, scale: Float = 1,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let ours = try RGBDFrame(decoding: frame, origin: "photo").depth
        let truth = try RGBDFrame(decoding: fixture.frame, origin: "truth").depth
        XCTAssertEqual([ours.width, ours.height], [truth.width, truth.height], file: file, line: line)
        let step = Float(fixture.floatMax - fixture.floatMin) / 255
        // Each error in disparity steps: a depth error dz at true depth t is dz / t² in disparity.
        let errors = zip(ours.metres, truth.metres).compactMap { z, t -> Float? in
            guard t > 0, t.isFinite else { return nil }
            return z > 0 && z.isFinite ? abs(z - t * scale) / (t * t * scale) / step : .infinity
        }.sorted()
        XCTAssertGreaterThan(errors.count, truth.metres.count / 2, file: file, line: line)
        XCTAssertLessThanOrEqual(errors[errors.count / 2], 0.5, "median error in disparity steps", file: file, line: line)
        XCTAssertLessThanOrEqual(errors[errors.count * 99 / 100], 1.5, "99th percentile error in disparity steps", file: file, line: line)
        XCTAssertLessThanOrEqual(errors.last!, 8, "largest error in disparity steps", file: file, line: line)
    }

    /// EXIF orientation 6 (stored turned, shown upright): turning color, depth and intrinsics back
    /// gives the simulated frame itself.
    func testEXIFOrientationTurnsColorDepthAndIntrinsicsAlike() throws {
        let dir = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fixture = try DepthPhotoFixture(in: dir.path, orientation: 6)
        let (source, frame) = try open(fixture.path)
        XCTAssertEqual(frame.intrinsics.referenceWidth, fixture.frame.intrinsics.referenceWidth)
        XCTAssertEqual(frame.intrinsics.fx, fixture.frame.intrinsics.fx, accuracy: 1e-9)
        XCTAssertEqual(frame.intrinsics.cx, fixture.frame.intrinsics.cx, accuracy: 1e-9)
        XCTAssertEqual(frame.intrinsics.cy, fixture.frame.intrinsics.cy, accuracy: 1e-9)
        XCTAssertEqual([frame.color?.width, frame.color?.height], [fixture.frame.color?.width, fixture.frame.color?.height])
        XCTAssertTrue(source.warnings.contains { $0.message.contains("orientation 6") }, "\(source.warnings)")
        try assertDepthMatches(frame, fixture)
        // Color too: JPEG at quality 95, so close, not equal.
        let ours = try XCTUnwrap(try RGBDFrame(decoding: frame, origin: "photo").color).rgb
        let truth = try XCTUnwrap(try RGBDFrame(decoding: fixture.frame, origin: "truth").color).rgb
        let mean = zip(ours, truth).map { abs(Int($0) - Int($1)) }.reduce(0, +) / ours.count
        XCTAssertLessThanOrEqual(mean, 3)
    }

    /// Relative depth is labelled so, and a known distance scales it: the named pixel then lies
    /// exactly that far, and every other depth scales with it.
    func testKnownDistanceScalesRelativeDepthToMetres() throws {
        let dir = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fixture = try DepthPhotoFixture(in: dir.path, accuracy: "relative")
        let (relative, relativeFrame) = try open(fixture.path)
        XCTAssertEqual(relativeFrame.depth.accuracy, .relative)
        XCTAssertTrue(relative.warnings.contains { $0.message.contains("not metres") })

        // Pixel (160, 120) of the 320x240 color image is depth pixel (128, 96) of 256x192.
        let truth = try RGBDFrame(decoding: fixture.frame, origin: "truth").depth
        let k = fixture.frame.intrinsics.scaled(toWidth: 256, height: 192)
        let z = Double(truth.metres[96 * 256 + 128])
        let ray = SIMD3((128 - k.cx) / k.fx, (96 - k.cy) / k.fy, 1)
        let trueDistance = z * (ray * ray).sum().squareRoot()
        let (scaled, frame) = try open(fixture.path, SourceOptions(knownDistance: KnownDistance(x: 160, y: 120, metres: 2 * trueDistance)))
        XCTAssertEqual(frame.depth.accuracy, .absolute)
        XCTAssertTrue(scaled.warnings.contains { $0.message.contains("--known-distance") }, "\(scaled.warnings)")
        // The whole depth map doubles (the 3x3 median at the pixel is within one step of it).
        try assertDepthMatches(frame, fixture, scale: 2)
    }

    /// --matte keeps exactly the depth pixels the photo's matte marks.
    func testMatteKeepsOnlyTheSubject() throws {
        let dir = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fixture = try DepthPhotoFixture(in: dir.path)
        let (_, frame) = try open(fixture.path, SourceOptions(matte: true))
        let depth = try RGBDFrame(decoding: frame, origin: "photo").depth
        let truth = try RGBDFrame(decoding: fixture.frame, origin: "truth").depth
        let kept = depth.metres.filter { $0 > 0 && $0.isFinite }.count
        let subject = truth.metres.filter { $0 > 0 && $0 < fixture.subjectDepth }.count
        XCTAssertEqual(Double(kept), Double(subject), accuracy: Double(subject) * 0.01, "the matte's subject, to its JPEG edges")
        XCTAssertTrue(depth.metres.allSatisfy { !($0 > 0) || $0 < fixture.subjectDepth * 1.02 }, "nothing behind the subject")
    }

    // MARK: Refusals

    func testBadPhotosAndMisusedFlagsAreRefusedByName() throws {
        let dir = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fixture = try DepthPhotoFixture(in: dir.path, auxiliaries: [])
        let good = try InputFile.readAll(fixture.path)
        func refused(
            _ bytes: [UInt8], _ expected: String, options: SourceOptions = SourceOptions(),
            file: StaticString = #filePath, line: UInt = #line
        ) throws {
            let path = dir.appendingPathComponent("bad.jpg").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            XCTAssertThrowsError(try open(path, options), file: file, line: line) { error in
                let message = (error as? CloudError)?.message ?? "\(error)"
                XCTAssertTrue(message.contains(path) && message.contains(expected), message, file: file, line: line)
                XCTAssertEqual((error as? CloudError)?.exitStatus, 2, file: file, line: line)
            }
        }
        func replacing(_ old: String, _ new: String) -> [UInt8] {
            let (o, n) = (Array(old.utf8), Array(new.utf8))
            precondition(o.count == n.count)
            let at = (0...(good.count - o.count)).first { good[$0..<($0 + o.count)].elementsEqual(o) }!
            var bytes = good
            bytes.replaceSubrange(at..<(at + o.count), with: n)
            return bytes
        }
        try refused(Array(good.prefix(2000)), "lies outside the file's 2000 bytes")
        try refused(Array("hello".utf8), "not a JPEG or HEIC photo")
        try refused(good, "no portrait effects matte", options: SourceOptions(matte: true))
        try refused(replacing("<apdi:IntMaxValue>255<", "<apdi:IntMaxValue>nan<"), "IntMaxValue")
        try refused(replacing("1751411059", "1751411060"), "NativeFormat")
        try refused(replacing("<depthData:Accuracy>absolute<", "<depthData:Accuracy>absolutx<"), "Accuracy")
        try refused(replacing("<apdi:IntMinValue>0</apdi:IntMinValue>", "<apdi:IntMinValue>0</apdi:IntMinValuX>"), "malformed XMP")
        try refused(replacing("MPF\u{0}MM", "MPF\u{0}XX"), "byte order")
        try refused(good, "outside the 320x240 photo", options: SourceOptions(knownDistance: KnownDistance(x: 5000, y: 1, metres: 1)))
        XCTAssertThrowsError(try KnownDistance(parsing: "1,2")) { XCTAssertTrue("\($0)".contains("X,Y=METRES")) }
        XCTAssertThrowsError(try KnownDistance(parsing: "1,2=-3")) { XCTAssertTrue("\($0)".contains("positive")) }
        XCTAssertThrowsError(try SourceSpec(parsing: "synthetic").open(options: SourceOptions(matte: true))) {
            XCTAssertTrue("\($0)".contains("--matte does not apply"))
        }
    }
}
