import CloudCore
import XCTest

final class IntrinsicsTests: XCTestCase {
    /// A phone LiDAR camera: intrinsics at 1920x1440, depth at 256x192 (s = 2/15).
    let phone = CameraIntrinsics(fx: 1450, fy: 1452, cx: 955.3, cy: 723.8, referenceWidth: 1920, referenceHeight: 1440)

    func testScalingToDepthResolutionMatchesHandComputedValues() {
        let k = phone.scaled(toWidth: 256, height: 192)
        // fx' = 1450 * 256 / 1920; cx' = (955.3 + 0.5) * 256 / 1920 - 0.5 = 955.8 / 7.5 - 0.5
        XCTAssertEqual(k.fx, 193.333_333_333, accuracy: 1e-9)
        XCTAssertEqual(k.fy, 193.6, accuracy: 1e-9)
        XCTAssertEqual(k.cx, 126.94, accuracy: 1e-9)
        XCTAssertEqual(k.cy, 724.3 / 7.5 - 0.5, accuracy: 1e-9)
        XCTAssertEqual(k.referenceWidth, 256)
        XCTAssertEqual(k.referenceHeight, 192)
    }

    func testScalingRoundTripsAndIdentityIsExact() {
        XCTAssertEqual(phone.scaled(toWidth: 1920, height: 1440), phone)
        let back = phone.scaled(toWidth: 640, height: 480).scaled(toWidth: 1920, height: 1440)
        XCTAssertEqual(back.cx, phone.cx, accuracy: 1e-9)
        XCTAssertEqual(back.fy, phone.fy, accuracy: 1e-9)
    }

    /// The pixel-centre convention: after halving the resolution, the ray through the centre of
    /// pixel (u, v) is the ray through the centre of the 2x2 block it covers at full resolution,
    /// i.e. through full-resolution coordinate (2u + 0.5, 2v + 0.5).
    func testHalvingKeepsEachPixelFootprintOnTheSameRays() {
        let full = CameraIntrinsics(fx: 525, fy: 525, cx: 319.5, cy: 239.5, referenceWidth: 640, referenceHeight: 480)
        let half = full.scaled(toWidth: 320, height: 240)
        for (u, v) in [(0, 0), (159, 119), (319, 239), (17, 200)] {
            let a = half.backProject(u: Double(u), v: Double(v), z: 2)
            let b = full.backProject(u: 2 * Double(u) + 0.5, v: 2 * Double(v) + 0.5, z: 2)
            XCTAssertEqual(a.x, b.x, accuracy: 1e-12)
            XCTAssertEqual(a.y, b.y, accuracy: 1e-12)
        }
        // An ideal centred camera keeps its principal point at the image centre at any size.
        XCTAssertEqual(half.cx, 159.5, accuracy: 1e-12)
        XCTAssertEqual(half.cy, 119.5, accuracy: 1e-12)
    }

    func testBackProjectAndProjectAreInverse() {
        let k = CameraIntrinsics(fx: 525, fy: 525, cx: 320, cy: 240, referenceWidth: 640, referenceHeight: 480)
        let p = k.backProject(u: 100, v: 50, z: 1.5)
        // (100 - 320) * 1.5 / 525 and (50 - 240) * 1.5 / 525
        XCTAssertEqual(p.x, -0.628_571_428_571, accuracy: 1e-12)
        XCTAssertEqual(p.y, -0.542_857_142_857, accuracy: 1e-12)
        let uv = k.project(p)
        XCTAssertEqual(uv.x, 100, accuracy: 1e-9)
        XCTAssertEqual(uv.y, 50, accuracy: 1e-9)
    }

    func testNonFiniteOrNonPositiveIntrinsicsAreRefusedNamingTheirOrigin() {
        let bad = [
            CameraIntrinsics(fx: .nan, fy: 525, cx: 320, cy: 240, referenceWidth: 640, referenceHeight: 480),
            CameraIntrinsics(fx: 0, fy: 525, cx: 320, cy: 240, referenceWidth: 640, referenceHeight: 480),
            CameraIntrinsics(fx: 525, fy: -1, cx: 320, cy: 240, referenceWidth: 640, referenceHeight: 480),
            CameraIntrinsics(fx: 525, fy: 525, cx: .infinity, cy: 240, referenceWidth: 640, referenceHeight: 480),
            CameraIntrinsics(fx: 525, fy: 525, cx: 320, cy: 240, referenceWidth: 0, referenceHeight: 480)
        ]
        for k in bad {
            XCTAssertThrowsError(try k.validate(origin: "cam.json")) { error in
                let e = error as? CloudError
                XCTAssertEqual(e?.kind, .badInput)
                XCTAssertTrue(e?.message.hasPrefix("cam.json: ") ?? false, "\(error)")
            }
        }
        XCTAssertNoThrow(try phone.validate(origin: "phone"))
    }

    func testLookAtPoseMapsCameraAxesIntoAZUpWorld() {
        // Looking along world +y from (1, 0, 1.5): camera x is world +x, camera y (down) is world -z.
        let pose = Pose.lookAt(eye: SIMD3(1, 0, 1.5), target: SIMD3(1, 5, 1.5))
        XCTAssertEqual(pose.apply(SIMD3(0, 0, 2)), SIMD3(1, 2, 1.5))
        XCTAssertEqual(pose.apply(SIMD3(1, 0, 0)), SIMD3(2, 0, 1.5))
        XCTAssertEqual(pose.apply(SIMD3(0, 1, 0)), SIMD3(1, 0, 0.5))
        XCTAssertEqual(pose.inverseRotate(SIMD3(0, 0, -1)), SIMD3(0, 1, 0))
    }
}
