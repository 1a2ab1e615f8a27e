import CloudCore
import CloudFiles
import CloudPCL
import Foundation
import SharedTestData
import XCTest

/// The least-squares plane normal through `points` (the eigenvector of their covariance with the
/// smallest eigenvalue, by Jacobi rotations in double): an estimate written without PCL.
func planeNormal(_ points: [SIMD3<Float>]) -> SIMD3<Double> {
    let mean = points.reduce(SIMD3<Double>.zero) { $0 + SIMD3<Double>($1) } / Double(points.count)
    var a = [[Double]](repeating: [0, 0, 0], count: 3)
    for p in points {
        let d = SIMD3<Double>(p) - mean
        for r in 0..<3 { for c in 0..<3 { a[r][c] += d[r] * d[c] } }
    }
    var v: [[Double]] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    for _ in 0..<50 {
        for (p, q) in [(0, 1), (0, 2), (1, 2)] where abs(a[p][q]) > 1e-300 {
            let theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
            let t = (theta >= 0 ? 1 : -1) / (abs(theta) + (theta * theta + 1).squareRoot())
            let (c, s) = (1 / (t * t + 1).squareRoot(), t / (t * t + 1).squareRoot())
            for k in 0..<3 {
                let (akp, akq) = (a[k][p], a[k][q])
                a[k][p] = c * akp - s * akq
                a[k][q] = s * akp + c * akq
            }
            for k in 0..<3 {
                let (apk, aqk) = (a[p][k], a[q][k])
                a[p][k] = c * apk - s * aqk
                a[q][k] = s * apk + c * aqk
            }
            for k in 0..<3 {
                let (vkp, vkq) = (v[k][p], v[k][q])
                v[k][p] = c * vkp - s * vkq
                v[k][q] = s * vkp + c * vkq
            }
        }
    }
    let smallest = (0..<3).min { a[$0][$0] < a[$1][$1] }!
    return SIMD3(v[0][smallest], v[1][smallest], v[2][smallest])
}

func estimatedNormal(_ cloud: PointCloud, _ i: Int) -> SIMD3<Float> {
    SIMD3(cloud.normals![3 * i], cloud.normals![3 * i + 1], cloud.normals![3 * i + 2])
}

/// A cloud of `count` points scattered over a 0.5 m square at z = 1, `thickness` thick: the plane
/// fit depends on exactly which neighbours are taken.
func scatteredSlab(count: Int, thickness: Float = 0.004, seed: UInt64) -> PointCloud {
    var random = SplitMix64(seed: seed)
    var positions = [Float]()
    positions.reserveCapacity(3 * count)
    for _ in 0..<count {
        positions += [random.float(0.25), random.float(0.25), 1 + random.float(thickness / 2)]
    }
    return PointCloud(positions: positions)
}

final class NormalEstimationTests: XCTestCase {
    /// Unorganized clouds take the nearest `maxNeighbours` points within the radius: the same
    /// neighbours as a brute-force search, on a sparse cloud (a radius-sized cell holds all
    /// candidates) and on a dense one (small cells searched ring by ring).
    func testUnorganizedNeighboursAreTheNearestWithinTheRadius() throws {
        // Thin enough that the neighbourhoods are flat (a plane fit over a round blob is ill-posed).
        for (count, thickness, radius, cap) in [
            (4_000, Float(0.004), Float(0.03), 30), (120_000, 0.001, 0.05, 30),
            (120_000, 0.0005, 0.006, 12)
        ] {
            var cloud = scatteredSlab(count: count, thickness: thickness, seed: UInt64(count))
            try Normals.estimate(&cloud, radius: radius, maxNeighbours: cap, viewpoint: SIMD3(0, 0, 2))
            var checked = 0
            for i in stride(from: 0, to: count, by: count / 80) {
                let p = cloud.point(i)
                var near: [(Float, Int)] = []
                for j in 0..<count {
                    let d = cloud.point(j) - p
                    let d2 = (d * d).sum()
                    if d2 <= radius * radius { near.append((d2, j)) }
                }
                near.sort { $0.0 < $1.0 }
                let chosen = near.prefix(cap).map { cloud.point($0.1) }
                let n = estimatedNormal(cloud, i)
                guard chosen.count >= 3 else {
                    XCTAssertTrue(n.x.isNaN, "\(count) points: point \(i) has \(chosen.count) neighbours")
                    continue
                }
                let expected = planeNormal(chosen)
                let cosine = abs((SIMD3<Double>(n) * expected).sum())
                XCTAssertGreaterThan(cosine, cos(0.1 * .pi / 180), "\(count) points, radius \(radius): point \(i)")
                XCTAssertGreaterThan(n.z, 0, "faces the viewpoint above")
                checked += 1
            }
            XCTAssertGreaterThan(checked, 60)
        }
    }

    /// The cap keeps the nearest points: a dense patch of a plane with a few points of another
    /// surface farther out gets the plane's normal under the cap, and a tilted one without it.
    func testTheCapTakesTheNearestPoints() throws {
        var positions: [Float] = []
        for y in -8...8 { for x in -8...8 { positions += [Float(x) * 0.002, Float(y) * 0.002, 0] } }
        for k in 0..<12 { positions += [0.03 + Float(k) * 0.001, 0, 0.02 + Float(k) * 0.001] }
        let centre = 8 * 17 + 8
        var capped = PointCloud(positions: positions)
        try Normals.estimate(&capped, radius: 0.05, maxNeighbours: 30, viewpoint: SIMD3(0, 0, 1))
        XCTAssertEqual(estimatedNormal(capped, centre).z, 1, accuracy: 1e-6, "the nearest 30 all lie on the plane")
        var all = PointCloud(positions: positions)
        try Normals.estimate(&all, radius: 0.05, maxNeighbours: 1000, viewpoint: SIMD3(0, 0, 1))
        XCTAssertLessThan(estimatedNormal(all, centre).z, cos(1 * .pi / 180), "every point within the radius tilts the plane")
    }

    /// Normals turn toward the viewpoint, whichever side it is on; NaN or infinite points get NaN
    /// normals and change nobody else's; a point with fewer than 3 points within the radius
    /// (itself included) gets NaN.
    func testOrientationAndMissingPoints() throws {
        let slab = scatteredSlab(count: 3_000, seed: 3)
        for eye in [SIMD3<Float>(0, 0, 3), SIMD3<Float>(0.1, 0, -2)] {
            var cloud = slab
            try Normals.estimate(&cloud, radius: 0.04, viewpoint: eye)
            for i in 0..<cloud.count {
                XCTAssertGreaterThan((estimatedNormal(cloud, i) * (eye - cloud.point(i))).sum(), 0, "point \(i) toward \(eye)")
                XCTAssertEqual(((estimatedNormal(cloud, i) * estimatedNormal(cloud, i)).sum()).squareRoot(), 1, accuracy: 1e-5)
            }
        }

        var reference = slab
        try Normals.estimate(&reference, radius: 0.04)
        var positions: [Float] = []
        var missing: [Bool] = []
        for i in 0..<slab.count {
            if i % 5 == 0 {
                positions += i % 10 == 0 ? [.nan, 0, 1] : [0, .infinity, 1]
                missing.append(true)
            }
            positions += [slab.positions[3 * i], slab.positions[3 * i + 1], slab.positions[3 * i + 2]]
            missing.append(false)
        }
        positions += [5, 5, 5, 5.001, 5, 5]  // two points alone: too few for a plane
        missing += [true, true]
        var holey = PointCloud(positions: positions)
        try Normals.estimate(&holey, radius: 0.04)
        var j = 0
        for i in 0..<holey.count {
            if missing[i] {
                XCTAssertTrue(
                    estimatedNormal(holey, i).x.isNaN && estimatedNormal(holey, i).y.isNaN && estimatedNormal(holey, i).z.isNaN,
                    "point \(i)")
            } else {
                XCTAssertEqual(
                    estimatedNormal(holey, i), estimatedNormal(reference, j), "point \(i): the missing points changed its normal")
                j += 1
            }
        }
    }

    func testDegenerateCloudsGetNaNOrNothing() throws {
        var empty = PointCloud(positions: [])
        try Normals.estimate(&empty, radius: 0.05)
        XCTAssertEqual(empty.normals, [])

        // Organized grids narrower than PCL's 3 x 3 gradient stencil still get normals.
        var positions: [Float] = []
        for y in 0..<40 { for x in 0..<2 { positions += [Float(x) * 0.01, Float(y) * 0.01, 2] } }
        var strip = PointCloud(positions: positions, organized: .init(width: 2, height: 40))
        try Normals.estimate(&strip, radius: 0.05)
        for i in 0..<strip.count { XCTAssertEqual(estimatedNormal(strip, i), SIMD3(0, 0, -1), "point \(i)") }

        // All points missing, organized and not.
        var nothing = PointCloud(positions: [Float](repeating: .nan, count: 3 * 12), organized: .init(width: 4, height: 3))
        try Normals.estimate(&nothing, radius: 0.05)
        XCTAssertTrue(nothing.normals!.allSatisfy(\.isNaN))
        nothing.organized = nil
        try Normals.estimate(&nothing, radius: 0.05)
        XCTAssertTrue(nothing.normals!.allSatisfy(\.isNaN))
    }

    /// A radius far larger than the cloud, or far smaller than its spacing, finishes quickly: NaN
    /// where no plane fits, never a hang.
    func testExtremeRadiiStayBounded() throws {
        let slab = scatteredSlab(count: 20_000, thickness: 0.0005, seed: 9)
        var huge = slab
        try Normals.estimate(&huge, radius: 1e30, viewpoint: SIMD3(0, 0, 2))
        for i in stride(from: 0, to: huge.count, by: 97) { XCTAssertGreaterThan(estimatedNormal(huge, i).z, 0.99) }
        var tiny = slab
        try Normals.estimate(&tiny, radius: 1e-7)
        XCTAssertTrue(tiny.normals!.allSatisfy(\.isNaN))
    }

    func testBadParametersAreRefusedWithASensibleValue() {
        var cloud = scatteredSlab(count: 100, seed: 1)
        for radius in [Float(0), -0.05, .nan, .infinity] {
            assertCloudError(.badInput, naming: "radius", containing: "0.05") {
                try Normals.estimate(&cloud, radius: radius)
            }
        }
        for cap in [2, 0, -1] {
            assertCloudError(.badInput, naming: "neighbours", containing: "30") {
                try Normals.estimate(&cloud, radius: 0.05, maxNeighbours: cap)
            }
        }
        assertCloudError(.badInput, naming: "neighbours", containing: "30") {
            try Normals.estimate(&cloud, radius: 0.05, maxNeighbours: Normals.maxNeighboursLimit + 1)
        }
        assertCloudError(.badInput, naming: "viewpoint", containing: "(0, 0, 0)") {
            try Normals.estimate(&cloud, radius: 0.05, viewpoint: SIMD3(0, .nan, 0))
        }
        XCTAssertNil(cloud.normals, "a refused estimate leaves the cloud alone")
    }

    /// PLY stores nx ny nz and PCD normal_x normal_y normal_z curvature (0); both read back as written.
    func testNormalsSurviveTheWriters() throws {
        var (cloud, _) = try BoxRoom().capture()
        try Normals.estimate(&cloud, radius: 0.05)
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, property) in [
            ("room.ply", "property float nx\nproperty float ny\nproperty float nz\n"),
            ("room.pcd", "FIELDS x y z normal_x normal_y normal_z curvature")
        ] {
            let path = folder.appendingPathComponent(name).path
            try CloudWriter.write(cloud, to: path)
            let head = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)).prefix(400), as: UTF8.self)
            XCTAssertTrue(head.contains(property), "\(name) header:\n\(head)")
            let back = try CloudReader.read(path).cloud
            let finite = (0..<cloud.count).filter { cloud.point($0).z.isFinite }
            XCTAssertEqual(back.finiteCount, finite.count, name)
            let readNormals = try XCTUnwrap(back.normals, name)
            // PLY leaves empty pixels out (PCD keeps the grid): compare point by point in order.
            let written = back.count == cloud.count ? Array(0..<cloud.count) : finite
            for (k, i) in written.enumerated() where cloud.point(i).z.isFinite {
                for c in 0..<3 {
                    XCTAssertTrue(sameFloat(readNormals[3 * k + c], cloud.normals![3 * i + c]), "\(name) point \(i)")
                }
            }
        }
    }

    /// The PCL grabber frame (a real Kinect, 271,575 valid points): the organized path gives every
    /// valid point a unit normal facing the camera, and fits the same surfaces as the unorganized
    /// path given the same neighbourhood (every point within the radius; the default cap of 30
    /// takes a patch of a few millimetres on this dense frame, whose normals follow the noise).
    func testRealKinectFrame() throws {
        let path = try sharedDataDirectory().appendingPathComponent("pcl-grabber/frame_20121214T142255.814212.pcd").path
        var organized = try CloudReader.read(path).cloud
        organized.normals = nil
        try Normals.estimate(&organized, radius: 0.05)
        let valid = (0..<organized.count).filter { organized.point($0).z.isFinite }
        XCTAssertEqual(valid.count, 271_575)
        let bad = valid.filter { i in
            let n = estimatedNormal(organized, i)
            return !(abs((n * n).sum() - 1) < 1e-4) || (n * organized.point(i)).sum() >= 0
        }
        XCTAssertEqual(bad, [], "points without a unit normal facing the camera")

        var flat = PointCloud(positions: valid.flatMap { i in (0..<3).map { organized.positions[3 * i + $0] } })
        try Normals.estimate(&flat, radius: 0.05, maxNeighbours: Normals.maxNeighboursLimit)
        var angles = valid.indices.map { k in
            acos(min(1, max(-1, (estimatedNormal(flat, k) * estimatedNormal(organized, valid[k])).sum()))) * 180 / Float.pi
        }
        angles.sort()
        XCTAssertLessThan(angles[angles.count / 2], 2, "median angle between the two paths' normals")
        XCTAssertLessThan(angles[angles.count * 9 / 10], 15, "90th percentile")
    }
}
