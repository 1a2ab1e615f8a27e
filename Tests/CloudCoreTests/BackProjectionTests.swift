import CloudCore
import XCTest

final class BackProjectionTests: XCTestCase {
    /// 4x3 depth, intrinsics at 8x6 reference (scaled by 1/2 to the depth map).
    func frame(color: ColorImage?) -> RGBDFrame {
        // Reference 8x6: fx = 4, cx = 3.5 -> at 4x3: fx = 2, cx = (3.5 + 0.5) / 2 - 0.5 = 1.5; cy 2.5 -> 1.
        let k = CameraIntrinsics(fx: 4, fy: 4, cx: 3.5, cy: 2.5, referenceWidth: 8, referenceHeight: 6)
        var z = [Float](repeating: 0, count: 12)
        z[0] = 1  // (0, 0)
        z[2 * 4 + 3] = 2  // (3, 2)
        z[1 * 4 + 1] = 5  // (1, 1): beyond a 4 m range limit
        return RGBDFrame(depth: DepthMap(width: 4, height: 3, metres: z), color: color, intrinsics: k, pose: nil)
    }

    /// An 8x6 color image whose pixel (x, y) is (x, y, 7).
    var color: ColorImage {
        ColorImage(width: 8, height: 6, rgb: (0..<6).flatMap { y in (0..<8).flatMap { x in [UInt8(x), UInt8(y), 7] } })
    }

    func testKnownPixelsLandWhereThePinholeModelPutsThem() throws {
        let (cloud, counts) = try BackProjection().run(frame(color: color))
        XCTAssertEqual(counts, .init(pixels: 12, valid: 3, droppedByRange: 0, points: 3))
        XCTAssertEqual(cloud.count, 3)
        // (0,0) at 1 m: ((0 - 1.5) / 2, (0 - 1) / 2, 1)
        XCTAssertEqual(cloud.point(0), SIMD3(-0.75, -0.5, 1))
        // (1,1) at 5 m: ((1 - 1.5) * 5 / 2, 0, 5)
        XCTAssertEqual(cloud.point(1), SIMD3(-1.25, 0, 5))
        // (3,2) at 2 m: ((3 - 1.5) * 2 / 2, (2 - 1) * 2 / 2, 2)
        XCTAssertEqual(cloud.point(2), SIMD3(1.5, 1, 2))
        // Colors: depth pixel (u, v) covers color pixels 2u...2u+1; its centre falls in 2u + 1.
        XCTAssertEqual(cloud.color(0), SIMD3(1, 1, 7))
        XCTAssertEqual(cloud.color(1), SIMD3(3, 3, 7))
        XCTAssertEqual(cloud.color(2), SIMD3(7, 5, 7))
    }

    func testRangeLimitsDropAndCount() throws {
        let (cloud, counts) = try BackProjection(options: .init(range: 1.5...4)).run(frame(color: nil))
        XCTAssertEqual(counts, .init(pixels: 12, valid: 3, droppedByRange: 2, points: 1))
        XCTAssertEqual(cloud.count, 1)
        XCTAssertNil(cloud.colors)
        XCTAssertEqual(cloud.point(0), SIMD3(1.5, 1, 2))
    }

    func testOrganizedKeepsTheGridWithNaNForMissingDepth() throws {
        let (cloud, counts) = try BackProjection(options: .init(range: 0...4, organized: true)).run(frame(color: color))
        XCTAssertEqual(cloud.organized, PointCloud.Grid(width: 4, height: 3))
        XCTAssertEqual(cloud.count, 12)
        XCTAssertEqual(counts.points, 2)
        XCTAssertEqual(cloud.point(0), SIMD3(-0.75, -0.5, 1))
        XCTAssertTrue(cloud.point(5).x.isNaN, "the 5 m pixel is outside the range")
        XCTAssertTrue(cloud.point(1).z.isNaN)
        XCTAssertEqual(cloud.point(11), SIMD3(1.5, 1, 2))
        XCTAssertEqual(cloud.color(11), SIMD3(7, 5, 7))
    }

    /// A large frame exercises the parallel bands: every band must land in order, none twice.
    func testBandsPreserveRowMajorOrderOnLargeFrames() throws {
        let (w, h) = (257, 193)
        let z = (0..<(w * h)).map { i in i % 7 == 0 ? 0 : Float(1 + i % 5) }
        let k = CameraIntrinsics(fx: 200, fy: 200, cx: 128, cy: 96, referenceWidth: w, referenceHeight: h)
        let f = RGBDFrame(depth: DepthMap(width: w, height: h, metres: z), color: nil, intrinsics: k, pose: nil)
        let (cloud, counts) = try BackProjection().run(f)
        let expected = z.enumerated().filter { $0.element > 0 }
        XCTAssertEqual(cloud.count, expected.count)
        XCTAssertEqual(counts.valid, expected.count)
        for (n, (i, d)) in expected.enumerated() where n % 97 == 0 {
            let p = k.backProject(u: Double(i % w), v: Double(i / w), z: Double(d))
            XCTAssertEqual(cloud.point(n), SIMD3(Float(p.x), Float(p.y), Float(p.z)), accuracy: 1e-5)
        }
    }

    func testInvalidIntrinsicsAreRefused() {
        var f = frame(color: nil)
        f.intrinsics.fx = .nan
        XCTAssertThrowsError(try BackProjection().run(f))
    }
}

func XCTAssertEqual(_ a: SIMD3<Float>, _ b: SIMD3<Float>, accuracy: Float, file: StaticString = #filePath, line: UInt = #line) {
    let d = a - b
    XCTAssertLessThanOrEqual(max(abs(d.x), abs(d.y), abs(d.z)), accuracy, "\(a) != \(b)", file: file, line: line)
}
