import CloudCapture
import CloudCore
import XCTest

final class SourceSpecTests: XCTestCase {
    func settings(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> SyntheticSettings {
        guard case .settings(let s) = try SourceSpec(parsing: text).arguments else {
            XCTFail("\(text) did not parse as synthetic", file: file, line: line)
            throw CloudError.badInput("not synthetic")
        }
        return s
    }

    /// Asserts that parsing fails with bad input whose one-line message names the spec and contains `fragment`.
    func assertRejected(_ text: String, _ fragment: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try SourceSpec(parsing: text), text, file: file, line: line) { error in
            guard let e = error as? CloudError else { return XCTFail("\(text): \(error) is not a CloudError", file: file, line: line) }
            XCTAssertEqual(e.kind, .badInput, text, file: file, line: line)
            XCTAssertTrue(e.message.hasPrefix("source '\(text)': "), "\(text): \(e.message)", file: file, line: line)
            XCTAssertTrue(e.message.contains(fragment), "\(text): '\(e.message)' lacks '\(fragment)'", file: file, line: line)
            XCTAssertFalse(e.message.contains("\n"), "\(text): message is not one line", file: file, line: line)
        }
    }

    func testBareSyntheticGivesTheDocumentedDefaults() throws {
        let s = try settings("synthetic")
        XCTAssertEqual(s.room, SIMD3(4.0, 3.0, 2.5))
        XCTAssertEqual(s.seed, 0)
        XCTAssertTrue(s.noise)
        XCTAssertEqual(s.depthSize, ImageSize(width: 256, height: 192))
        XCTAssertEqual(s.colorSize, ImageSize(width: 1920, height: 1440))
        XCTAssertEqual(s.format, .depth16)
        XCTAssertEqual(s, SyntheticSettings())
        XCTAssertEqual(s.spec, "synthetic:room=4x3x2.5,seed=0,noise=1,depth=256x192,color=1920x1440,format=depth16")
    }

    func testEveryKeyIsRead() throws {
        let s = try settings("synthetic:room=5.5x4x3.25,seed=42,noise=0,depth=320x240,color=641x479,format=mm16")
        XCTAssertEqual(s.room, SIMD3(5.5, 4.0, 3.25))
        XCTAssertEqual(s.seed, 42)
        XCTAssertFalse(s.noise)
        XCTAssertEqual(s.depthSize, ImageSize(width: 320, height: 240))
        XCTAssertEqual(s.colorSize, ImageSize(width: 641, height: 479))
        XCTAssertEqual(s.format, .mm16)
        // Keys in any order; the ones left out keep their defaults.
        let t = try settings("synthetic:format=disparity32,seed=18446744073709551615")
        XCTAssertEqual(t.seed, UInt64.max)
        XCTAssertEqual(t.format, .disparity32)
        XCTAssertEqual(t.room, SIMD3(4.0, 3.0, 2.5))
        XCTAssertEqual(try settings("synthetic:room=0.5x100x1e1").room, SIMD3(0.5, 100, 10))
        XCTAssertEqual(try settings("synthetic:depth=1x16384").depthSize, ImageSize(width: 1, height: 16384))
    }

    func testEveryFormatNameMapsToItsEncoding() throws {
        let expected: [String: DepthEncoding] = [
            "depth16": .depthFloat16, "depth32": .depthFloat32, "disparity16": .disparityFloat16,
            "disparity32": .disparityFloat32, "mm16": .uint16(unitsPerMetre: 1000)
        ]
        for (name, encoding) in expected {
            XCTAssertEqual(try settings("synthetic:format=\(name)").format.encoding, encoding, name)
        }
        XCTAssertEqual(Set(SyntheticDepthFormat.allCases.map(\.rawValue)), Set(expected.keys))
    }

    func testSpecStringParsesBackToTheSameSettings() throws {
        for text in [
            "synthetic", "synthetic:room=5.5x4x3.25,seed=7,noise=0,depth=32x24,color=64x48,format=disparity16",
            "synthetic:distortion=1,reference=4032x3024", "synthetic:reference=64x48,color=64x48"
        ] {
            let s = try settings(text)
            XCTAssertEqual(try settings(s.spec), s, s.spec)
        }
    }

    func testMalformedSyntheticSpecsAreRejectedWithTheProblemNamed() {
        assertRejected("synthetic:", "empty parameter")
        assertRejected("synthetic:seed=1,", "empty parameter")
        assertRejected("synthetic:room", "'room' is not key=value")
        assertRejected("synthetic:=4", "'=4' is not key=value")
        assertRejected(
            "synthetic:size=3",
            "unknown key 'size' (keys: room, seed, noise, depth, color, format, distortion, reference, path, frames, sensor, yaw, roll, shape, door, furniture)"
        )
        assertRejected("synthetic:seed=1,noise=0,seed=2", "key 'seed' is given more than once")
        assertRejected("synthetic:room=4x3", "room=4x3 is not WxDxH")
        assertRejected("synthetic:room=4x3x2.5x1", "is not WxDxH")
        assertRejected("synthetic:room=4xax2.5", "is not WxDxH")
        assertRejected("synthetic:room=", "is not WxDxH")
        assertRejected("synthetic:room=4x0x2.5", "every side must be more than 0 and at most 100 m")
        assertRejected("synthetic:room=4x-3x2.5", "every side must be more than 0")
        assertRejected("synthetic:room=100.5x3x2.5", "at most 100 m")
        assertRejected("synthetic:room=infx3x2.5", "every side must be")
        assertRejected("synthetic:room=nanx3x2.5", "every side must be")
        assertRejected("synthetic:seed=abc", "seed=abc is not a non-negative integer")
        assertRejected("synthetic:seed=-1", "seed=-1 is not a non-negative integer")
        assertRejected("synthetic:seed=1.5", "is not a non-negative integer")
        assertRejected("synthetic:seed=18446744073709551616", "is not a non-negative integer")
        assertRejected("synthetic:noise=2", "noise=2 must be 0 or 1")
        assertRejected("synthetic:noise=yes", "must be 0 or 1")
        assertRejected("synthetic:distortion=2", "distortion=2 must be 0 or 1")
        assertRejected("synthetic:reference=4032", "reference=4032 is not WxH")
        assertRejected("synthetic:reference=0x3024", "reference=0x3024: each side must be 1...16384 pixels")
        assertRejected("synthetic:depth=256", "depth=256 is not WxH")
        assertRejected("synthetic:depth=25.5x192", "is not WxH")
        assertRejected("synthetic:depth=0x192", "depth=0x192: each side must be 1...16384 pixels")
        assertRejected("synthetic:color=16385x10", "color=16385x10: each side must be 1...16384")
        assertRejected("synthetic:color=-4x10", "each side must be 1...16384")
        assertRejected(
            "synthetic:format=depth8",
            "format=depth8 is not one of depth16, depth32, disparity16, disparity32, mm16")
        assertRejected("synthetic:format=", "is not one of")
    }

    func testUnknownKindsAreRejectedListingTheValidOnes() {
        let kinds = "(kinds: synthetic, rgbd, tum, redwood, pclgrabber, bundle, polycam, photo, stray, record3d, kinect, openni2)"
        assertRejected("realsense", "unknown source kind 'realsense' \(kinds)")
        assertRejected("Synthetic", "unknown source kind 'Synthetic'")
        assertRejected("", "unknown source kind ''")
        assertRejected("/data/scan.png", "unknown source kind '/data/scan.png'")
    }

    /// The device kinds parse; opening them on a machine without a camera fails as a device
    /// failure (exit 3), and a missing recording as bad input (exit 2).
    func testDeviceKindsParseAndOpenOnlyWithACamera() throws {
        let parsed: [(String, SourceSpec, CloudError)] = [
            ("kinect", .kinect(index: 0), .io("kinect:0: no Kinect is attached")),
            ("kinect:2", .kinect(index: 2), .io("kinect:2: no Kinect is attached")),
            ("openni2", .openNI2(nil), .io("openni2: no OpenNI2 device is attached (DeviceOpen using default: no devices found)")),
            ("openni2:rec.oni", .openNI2("rec.oni"), .badInput(.file("rec.oni"), "no such file (expected an OpenNI2 .oni recording)"))
        ]
        for (text, spec, expected) in parsed {
            XCTAssertEqual(try SourceSpec(parsing: text), spec, text)
            XCTAssertThrowsError(try spec.open(), text) { error in
                XCTAssertEqual(error as? CloudError, expected, text)
            }
        }
        XCTAssertEqual(
            Set(parsed.map { $0.1.kind }).union([
                "synthetic", "bundle", "rgbd", "tum", "redwood", "pclgrabber", "polycam", "photo", "stray", "record3d"
            ]),
            Set(SourceSpec.kinds))
        XCTAssertEqual(try SourceSpec(parsing: "rgbd:c.png,d.png"), .rgbd(color: "c.png", depth: "d.png"))
        XCTAssertEqual(try SourceSpec(parsing: "tum:/data/tum"), .tum(directory: "/data/tum"))
        XCTAssertEqual(try SourceSpec(parsing: "redwood:rw"), .redwood(directory: "rw"))
        XCTAssertEqual(try SourceSpec(parsing: "polycam:scan"), .polycam(directory: "scan"))
        XCTAssertEqual(try SourceSpec(parsing: "photo:IMG_0001.HEIC"), .photo(path: "IMG_0001.HEIC"))
        XCTAssertEqual(try SourceSpec(parsing: "stray:71de12f9"), .stray(directory: "71de12f9"))
        XCTAssertEqual(try SourceSpec(parsing: "record3d:export"), .record3d(directory: "export"))
        XCTAssertEqual(try SourceSpec(parsing: "pclgrabber:grab"), .pclGrabber(directory: "grab"))
    }

    func testOtherKindsCheckTheirArguments() {
        assertRejected("tum", "expected tum:DIR")
        assertRejected("tum:", "expected tum:DIR")
        assertRejected("bundle:", "expected bundle:DIR")
        assertRejected("record3d", "expected record3d:DIR")
        assertRejected("rgbd:c.png", "expected rgbd:COLOR,DEPTH")
        assertRejected("rgbd:c.png,", "expected rgbd:COLOR,DEPTH")
        assertRejected("kinect:one", "the device index must be an integer in 0...255")
        assertRejected("kinect:-1", "the device index must be an integer in 0...255")
        // Beyond Int32: libfreenect's index type would trap on conversion if the spec let it through.
        assertRejected("kinect:5000000000", "the device index must be an integer in 0...255")
        assertRejected("kinect:256", "the device index must be an integer in 0...255")
        assertRejected("openni2:", "expected openni2:URI or openni2:FILE.oni")
    }

    /// The lens and reference keys: off and the color size by default, and left out of the spec
    /// then, so that existing names stay as they were.
    func testDistortionAndReferenceKeys() throws {
        let s = try settings("synthetic:distortion=1,reference=4032x3024")
        XCTAssertTrue(s.distortion)
        XCTAssertEqual(s.reference, ImageSize(width: 4032, height: 3024))
        XCTAssertEqual(
            s.spec, "synthetic:room=4x3x2.5,seed=0,noise=1,depth=256x192,color=1920x1440,format=depth16,distortion=1,reference=4032x3024")
        let plain = try settings("synthetic:distortion=0,color=64x48")
        XCTAssertFalse(plain.distortion)
        XCTAssertNil(plain.referenceSize)
        XCTAssertEqual(plain.reference, ImageSize(width: 64, height: 48))
        XCTAssertFalse(plain.spec.contains("distortion") || plain.spec.contains("reference"), plain.spec)
    }

    func testBundleOpensACaptureBundle() throws {
        let spec = try SourceSpec(parsing: "bundle:b")
        XCTAssertEqual(spec, .bundle(directory: "b"))
        XCTAssertThrowsError(try SourceSpec(parsing: "bundle:/no/such/bundle").open()) { error in
            XCTAssertEqual((error as? CloudError)?.kind, .badInput)
            XCTAssertEqual("\(error)", "bundle:/no/such/bundle: no such directory")
        }
    }

    func testSyntheticOpensTheSimulatedCamera() throws {
        let source = try SourceSpec(parsing: "synthetic:seed=3,color=64x48").open()
        XCTAssertTrue(source is SyntheticCamera)
        XCTAssertEqual(source.name, "synthetic:room=4x3x2.5,seed=3,noise=1,depth=256x192,color=64x48,format=depth16")
        XCTAssertTrue(source.knowsPose)
    }
}
