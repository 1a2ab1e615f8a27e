import CloudCore
import XCTest

final class LensDistortionTests: XCTestCase {
    /// 400x300 reference, centre on the image centre: the farthest corner (-0.5, -0.5) is 200 and
    /// 150 pixels away, so r_max = 250 and three entries sit at radii 0, 125 and 250.
    let lens = LensDistortion(
        center: SIMD2(199.5, 149.5), referenceWidth: 400, referenceHeight: 300,
        lookupTable: [0, 0.1, 0.3], inverseLookupTable: [0, -0.1, -0.2])

    func testMaxRadiusReachesTheFarthestOuterCorner() {
        XCTAssertEqual(lens.maxRadius, 250, accuracy: 1e-12)
        // Off-centre: the far corner is (399.5, 299.5), 300 and 250 pixels from (99.5, 49.5).
        var offCentre = lens
        offCentre.center = SIMD2(99.5, 49.5)
        XCTAssertEqual(offCentre.maxRadius, (300.0 * 300 + 250 * 250).squareRoot(), accuracy: 1e-12)
    }

    func testMagnificationInterpolatesLinearlyAndHoldsTheLastEntryBeyondRMax() {
        XCTAssertEqual(lens.magnification(atRadius: 0), 0)
        XCTAssertEqual(lens.magnification(atRadius: 62.5), 0.05, accuracy: 1e-15)  // halfway to entry 1
        XCTAssertEqual(lens.magnification(atRadius: 125), 0.1, accuracy: 1e-15)
        XCTAssertEqual(lens.magnification(atRadius: 187.5), 0.2, accuracy: 1e-15)
        XCTAssertEqual(lens.magnification(atRadius: 249.999), 0.3, accuracy: 1e-5)
        XCTAssertEqual(lens.magnification(atRadius: 250), 0.3)
        XCTAssertEqual(lens.magnification(atRadius: 1e6), 0.3)
        XCTAssertEqual(lens.inverseMagnification(atRadius: 125), -0.1, accuracy: 1e-15)
        XCTAssertEqual(lens.inverseMagnification(atRadius: 400), -0.2)
    }

    func testPointsMoveAlongTheirRadiusFromTheCentre() {
        // (30, 40) from the centre: r = 50, position 0.4 in the table, m = 0.04.
        let p = lens.distort(SIMD2(229.5, 189.5))
        XCTAssertEqual(p.x, 199.5 + 31.2, accuracy: 1e-12)
        XCTAssertEqual(p.y, 149.5 + 41.6, accuracy: 1e-12)
        XCTAssertEqual(lens.distort(lens.center), lens.center)
        // r = 125 with the inverse table: m = -0.1, the point moves in to 112.5.
        let q = lens.rectify(SIMD2(199.5, 149.5 - 125))
        XCTAssertEqual(q.x, 199.5, accuracy: 1e-12)
        XCTAssertEqual(q.y, 149.5 - 112.5, accuracy: 1e-12)
        // Beyond r_max the last entry applies: 500 px out, m = -0.2.
        XCTAssertEqual(lens.rectify(SIMD2(699.5, 149.5)).x, 199.5 + 400, accuracy: 1e-12)
    }

    /// At half the reference resolution, pixel (162, 74.5) covers reference position
    /// ((162 + 0.5) * 2 - 0.5, (74.5 + 0.5) * 2 - 0.5) = (324.5, 149.5), 125 px right of the centre;
    /// it rectifies to 112.5 px right, (312, 149.5), which is (312.5 / 2 - 0.5, 74.5) at half size.
    func testRectifyingInAScaledImageWorksInReferencePixels() {
        let q = lens.rectify(SIMD2(162, 74.5), width: 200, height: 150)
        XCTAssertEqual(q.x, 155.75, accuracy: 1e-12)
        XCTAssertEqual(q.y, 74.5, accuracy: 1e-12)
        let same = lens.rectify(SIMD2(324.5, 149.5), width: 400, height: 300)
        XCTAssertEqual(same, lens.rectify(SIMD2(324.5, 149.5)))
    }

    /// A phone-like barrel tabulated as Apple does (42 entries at the photo's 4032x3024): the
    /// forward table must undo the inverse one. m = -0.03 (2 x^2 - x^4), x = r / r_max, levels off
    /// at r_max, where the tables' last entry takes over; the inverse table is solved by bisection.
    /// Linear interpolation between 42 entries leaves a few hundredths of a reference pixel, which
    /// is below 0.01 px of the 256x192 depth map that gets back-projected.
    func testForwardAfterInverseIsTheIdentityWithinAHundredthOfADepthPixel() {
        let (w, h) = (4032, 3024)
        var lens = LensDistortion(
            center: SIMD2(2024.1, 1508.9), referenceWidth: w, referenceHeight: h,
            lookupTable: [], inverseLookupTable: [])
        let rMax = lens.maxRadius
        let n = 42
        func m(_ r: Double) -> Double {
            let x = min(r / rMax, 1)
            return -0.03 * (2 * x * x - x * x * x * x)
        }
        lens.lookupTable = (0..<n).map { m(Double($0) * rMax / Double(n - 1)) }
        lens.inverseLookupTable = (0..<n).map { i in
            let rd = Double(i) * rMax / Double(n - 1)
            guard rd > 0 else { return 0 }
            var (lo, hi) = (rd, rd * 1.1)
            for _ in 0..<100 {
                let mid = (lo + hi) / 2
                if mid * (1 + m(mid)) < rd { lo = mid } else { hi = mid }
            }
            return lo / rd - 1
        }
        XCTAssertNoThrow(try lens.validate(origin: "test"))
        var worst = 0.0
        for v in stride(from: 0, to: h, by: 9) {
            for u in stride(from: 0, to: w, by: 9) {
                let p = SIMD2(Double(u), Double(v))
                let back = lens.distort(lens.rectify(p)) - p
                worst = max(worst, (back * back).sum().squareRoot())
            }
        }
        let depthPixel = Double(w) / 256
        XCTAssertLessThan(worst, 0.01 * depthPixel)
        XCTAssertLessThan(worst, 0.05, "reference pixels")
        // And the tables do distort: a corner moves by about 3 % of its radius (75 reference px).
        let corner = SIMD2(-0.5, -0.5)
        let moved = lens.rectify(corner) - corner
        XCTAssertGreaterThan((moved * moved).sum().squareRoot(), 0.025 * rMax)
    }

    func testInvalidTablesAreRefusedNamingTheOrigin() {
        func refused(_ change: (inout LensDistortion) -> Void, _ fragment: String, line: UInt = #line) {
            var bad = lens
            change(&bad)
            XCTAssertThrowsError(try bad.validate(origin: "cal.json"), line: line) { error in
                let message = (error as? CloudError)?.message ?? ""
                XCTAssertEqual((error as? CloudError)?.kind, .badInput, line: line)
                XCTAssertTrue(message.hasPrefix("cal.json: lens distortion "), message, line: line)
                XCTAssertTrue(message.contains(fragment), "'\(message)' lacks '\(fragment)'", line: line)
            }
        }
        XCTAssertNoThrow(try lens.validate(origin: "cal.json"))
        refused({ $0.lookupTable = [0] }, "lookup table has 1 entries")
        refused({ $0.inverseLookupTable = [Double](repeating: 0, count: 5000) }, "inverse lookup table has 5000 entries")
        refused({ $0.lookupTable[1] = .nan }, "lookup table entry 1 is nan")
        refused({ $0.inverseLookupTable[2] = -1 }, "inverse lookup table entry 2 is -1.0")
        refused({ $0.center = SIMD2(400, 10) }, "centre (400.0, 10.0) lies outside the 400x300 image")
        refused({ $0.center.y = .infinity }, "lies outside")
        refused({ $0.referenceHeight = 0 }, "reference dimensions 400x0")
    }

    /// Without distortion the ray table holds exactly BackProjection's factors: a depth of 1 m
    /// everywhere back-projects to (x/z, y/z, 1).
    func testRayTableWithoutDistortionMatchesBackProjectionBitForBit() throws {
        let k = CameraIntrinsics(fx: 1450, fy: 1452, cx: 955.3, cy: 723.8, referenceWidth: 1920, referenceHeight: 1440)
        let (w, h) = (64, 48)
        let frame = RGBDFrame(
            depth: DepthMap(width: w, height: h, metres: [Float](repeating: 1, count: w * h)),
            color: nil, intrinsics: k, pose: nil)
        let cloud = try BackProjection().run(frame).cloud
        let rays = try RayTable(intrinsics: k, distortion: nil, width: w, height: h, origin: "test")
        XCTAssertEqual(rays.factors.count, 2 * w * h)
        for i in 0..<(w * h) {
            XCTAssertEqual(rays.factors[2 * i], cloud.positions[3 * i], "pixel \(i)")
            XCTAssertEqual(rays.factors[2 * i + 1], cloud.positions[3 * i + 1], "pixel \(i)")
        }
    }

    /// With distortion a pixel's ray is that of its rectified position under the scaled intrinsics:
    /// pixel (162, 74) of a 200x150 map rectifies (as above, 0.5 px higher) to (155.75, q.y).
    func testRayTableUsesEachPixelsRectifiedPosition() throws {
        let k = CameraIntrinsics(fx: 300, fy: 300, cx: 201, cy: 148, referenceWidth: 400, referenceHeight: 300)
        let rays = try RayTable(intrinsics: k, distortion: lens, width: 200, height: 150, origin: "test")
        let s = k.scaled(toWidth: 200, height: 150)
        let q = lens.rectify(SIMD2(162, 74), width: 200, height: 150)
        XCTAssertEqual(q.x, 155.75, accuracy: 0.01)
        let i = 2 * (74 * 200 + 162)
        XCTAssertEqual(rays.factors[i], Float((q.x - s.cx) / s.fx))
        XCTAssertEqual(rays.factors[i + 1], Float((q.y - s.cy) / s.fy))
        let undistorted = try RayTable(intrinsics: k, distortion: nil, width: 200, height: 150, origin: "test")
        XCTAssertLessThan(rays.factors[i], undistorted.factors[i], "this table rectifies the pixel towards the centre")
        XCTAssertThrowsError(try RayTable(intrinsics: k, distortion: nil, width: 0, height: 150, origin: "test"))
    }
}
