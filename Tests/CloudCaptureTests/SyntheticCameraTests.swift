import CloudCapture
import CloudCore
import XCTest

final class SyntheticCameraTests: XCTestCase {
    func testDefaultSpecDeliversOnePhoneLikeFrameThenEnds() throws {
        let camera = try syntheticCamera("synthetic")
        XCTAssertEqual(camera.name, "synthetic:room=4x3x2.5,seed=0,noise=1,depth=256x192,color=1920x1440,format=depth16")
        XCTAssertTrue(camera.knowsPose)
        let frame = try XCTUnwrap(try camera.nextFrame())
        XCTAssertNil(try camera.nextFrame())
        XCTAssertNil(try camera.nextFrame())

        XCTAssertEqual(frame.depth.width, 256)
        XCTAssertEqual(frame.depth.height, 192)
        XCTAssertEqual(frame.depth.encoding, .depthFloat16)
        XCTAssertEqual(frame.depth.bytesPerRow, 512)
        XCTAssertEqual(frame.depth.data.count, 512 * 192)

        let color = try XCTUnwrap(frame.color)
        XCTAssertEqual(color.width, 1920)
        XCTAssertEqual(color.height, 1440)
        XCTAssertEqual(color.layout, .yuv420BiPlanar(YUVFormat(range: .full, matrix: .bt709)))
        XCTAssertEqual(color.planes.map(\.count), [1920 * 1440, 960 * 720 * 2])

        // Intrinsics at the color resolution, off-centre principal point.
        let k = frame.intrinsics
        XCTAssertEqual(k.referenceWidth, 1920)
        XCTAssertEqual(k.referenceHeight, 1440)
        XCTAssertEqual(k.fx, 0.76 * 1920, accuracy: 1e-9)
        XCTAssertEqual(k.fy, k.fx)
        XCTAssertEqual(k.cx, 0.497 * 1920, accuracy: 1e-9)
        XCTAssertEqual(k.cy, 0.503 * 1440, accuracy: 1e-9)

        // Pose: the camera stands at (0.42 W, 0.36 D), 1.5 m up, looking at the far corner.
        let pose = try XCTUnwrap(frame.pose)
        XCTAssertEqual(pose, camera.pose)
        XCTAssertEqual(pose.translation, SIMD3(0.42 * 4, 0.36 * 3, 1.5))
        let forward = pose.rotate(SIMD3(0, 0, 1))
        let toTarget = camera.scene.target - camera.scene.eye
        XCTAssertEqual((forward * toTarget).sum() / (toTarget * toTarget).sum().squareRoot(), 1, accuracy: 1e-12)
        XCTAssertGreaterThan(forward.x, 0)
        XCTAssertGreaterThan(forward.y, 0)
        XCTAssertLessThan(forward.z, 0, "looks slightly down")

        let decoded = try RGBDFrame(decoding: frame, origin: camera.name)
        XCTAssertEqual(decoded.color?.width, 1920)
        XCTAssertGreaterThan(decoded.depth.validCount, 256 * 192 * 9 / 10)
    }

    func testEachOpenStartsAgain() throws {
        let spec = try SourceSpec(parsing: "synthetic:color=32x24")
        for _ in 0..<2 {
            let source = try spec.open()
            XCTAssertNotNil(try source.nextFrame())
            XCTAssertNil(try source.nextFrame())
        }
    }

    func testSameSpecGivesIdenticalBytes() throws {
        let spec = "synthetic:seed=11,depth=160x120,color=321x239,format=depth32"
        let a = try syntheticCamera(spec).renderFrame()
        let b = try XCTUnwrap(try syntheticCamera(spec).nextFrame())
        XCTAssertEqual(a.depth.data, b.depth.data)
        XCTAssertEqual(a.color?.planes, b.color?.planes)
        XCTAssertEqual(a.intrinsics, b.intrinsics)
        XCTAssertEqual(a.pose, b.pose)
    }

    func testSeedChangesTheNoiseOnly() throws {
        func depthBytes(_ spec: String) throws -> [UInt8] { try syntheticCamera(spec).renderFrame().depth.data }
        let noisy = try depthBytes("synthetic:seed=1,color=16x12")
        XCTAssertNotEqual(noisy, try depthBytes("synthetic:seed=2,color=16x12"))
        XCTAssertEqual(
            try depthBytes("synthetic:seed=1,noise=0,color=16x12"),
            try depthBytes("synthetic:seed=2,noise=0,color=16x12"))
        XCTAssertNotEqual(noisy, try depthBytes("synthetic:seed=1,noise=0,color=16x12"))
    }

    /// Noise follows the documented model: about 1 % random dropouts plus grazing ones, and
    /// residuals against the exact depth that are unit normal once divided by sigma(z).
    func testNoiseMatchesItsModel() throws {
        // The published model: sigma = 1 mm + 0.0015 z^2 m.
        XCTAssertEqual(SyntheticCamera.noiseSigma(depth: 2), 0.007, accuracy: 1e-12)
        let exact = try renderedDepth("synthetic:seed=5,noise=0,color=16x12,format=depth32")
        let noisy = try renderedDepth("synthetic:seed=5,noise=1,color=16x12,format=depth32")
        XCTAssertEqual(exact.validCount, exact.width * exact.height, "the room is closed: every ray hits")
        let dropped = Double(exact.validCount - noisy.validCount) / Double(exact.validCount)
        XCTAssertGreaterThan(dropped, 0.007)
        XCTAssertLessThan(dropped, 0.04)
        var (n, sum, sumSquares) = (0.0, 0.0, 0.0)
        for (z, zn) in zip(exact.metres, noisy.metres) where zn > 0 {
            let r = Double(zn - z) / SyntheticCamera.noiseSigma(depth: Double(z))
            (n, sum, sumSquares) = (n + 1, sum + r, sumSquares + r * r)
        }
        let mean = sum / n
        XCTAssertEqual(mean, 0, accuracy: 0.03)
        XCTAssertEqual((sumSquares / n - mean * mean).squareRoot(), 1, accuracy: 0.03)
    }

    /// Every encoding decodes to the same metres, within what that encoding can hold. Noise is on:
    /// dropouts and noise must not depend on the format either.
    func testFormatsDecodeToTheSameDepth() throws {
        let base = "synthetic:seed=9,color=16x12,format="
        let reference = try renderedDepth(base + "depth32")
        func allowed(_ format: SyntheticDepthFormat, _ z: Float) -> Float {
            switch format {
            case .depth16: return 0.5 * Float(Float16(z).ulp) + 1e-6  // Float16 half-ulp (+ Float32's)
            case .depth32: return 0
            case .disparity16: return z * 1e-3  // 11-bit significand: relative 2^-11 on 1/z
            case .disparity32: return z * 1e-6
            case .mm16: return 0.0005 + 1e-6  // half a millimetre
            }
        }
        for format in SyntheticDepthFormat.allCases where format != .depth32 {
            let depth = try renderedDepth(base + format.rawValue)
            var worst: Float = 0
            for (z, zf) in zip(reference.metres, depth.metres) {
                XCTAssertEqual(z > 0, zf > 0, "\(format): validity differs")
                guard z > 0 else { continue }
                XCTAssertLessThanOrEqual(abs(zf - z), allowed(format, z), "\(format) at z = \(z)")
                worst = max(worst, abs(zf - z))
            }
            XCTAssertGreaterThan(worst, 0, "\(format) should lose some precision against Float32")
        }
    }

    func testSettingsBuiltInCodeAreCheckedToo() throws {
        XCTAssertNoThrow(try SyntheticCamera())
        let bad = [
            SyntheticSettings(room: SIMD3(0, 3, 2.5)), SyntheticSettings(room: SIMD3(4, .nan, 2.5)),
            SyntheticSettings(room: SIMD3(4, 3, 250)), SyntheticSettings(depthSize: ImageSize(width: 0, height: 192)),
            SyntheticSettings(colorSize: ImageSize(width: 640, height: -480))
        ]
        for settings in bad {
            XCTAssertThrowsError(try SyntheticCamera(settings: settings), settings.spec) {
                XCTAssertEqual(($0 as? CloudError)?.kind, .badInput)
            }
        }
    }

    func testOddColorSizesSubsamplePartialBlocks() throws {
        let frame = try syntheticCamera("synthetic:color=33x17").renderFrame()
        let color = try XCTUnwrap(frame.color)
        XCTAssertEqual(color.planes.map(\.count), [33 * 17, 17 * 9 * 2])
        let image = try ColorImage(decoding: color, origin: "odd")
        XCTAssertEqual(image.rgb.count, 33 * 17 * 3)
    }
}
