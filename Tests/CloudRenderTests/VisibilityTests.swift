import CloudCore
import XCTest

@testable import CloudRender

/// The depth test, the mirror symmetry of the orbit, and that splitting the work across threads
/// changes nothing.
final class VisibilityTests: XCTestCase {
    private let front = OrbitCamera(
        target: SIMD3(0, 0, 2), distance: 2, azimuth: 0, elevation: 0, fieldOfView: 60,
        up: .cameraFrame, width: 320, height: 240)

    /// Two points on one ray from the eye: the nearer shows, whichever comes first in the cloud,
    /// and from behind (azimuth 180) the other one does.
    func testNearerPointHidesFartherOne() throws {
        for order in [[0, 1], [1, 0]] {
            // Both on the orbit's axis through the target, so that they overlap from the front and from behind.
            let points: [SIMD3<Float>] = [SIMD3(0.1, 0.05, 1.5), SIMD3(0.1, 0.05, 3.0)]
            let colors: [[UInt8]] = [[255, 0, 0], [0, 255, 0]]
            let cloud = PointCloud(
                positions: order.flatMap { [points[$0].x, points[$0].y, points[$0].z] },
                colors: order.flatMap { colors[$0] })
            let renderer = PointRenderer(cloud: cloud)
            let style = RenderStyle(color: .rgb, pointSize: 3, background: black)
            var camera = front
            camera.target = SIMD3(0.1, 0.05, 2.25)
            var image = try renderer.render(camera, style: style).image
            XCTAssertEqual(dominant(image), [255, 0, 0], "order \(order): the near red point must cover the far green one")
            var behind = camera
            behind.azimuth = 180
            image = try renderer.render(behind, style: style).image
            XCTAssertEqual(dominant(image), [0, 255, 0], "order \(order): from behind the green point is the nearer")
        }
    }

    /// A far wall of many points split across two threads, and one near point in the second
    /// thread's share: the merge keeps the nearer point.
    func testDepthTestHoldsAcrossThreads() throws {
        var positions: [Float] = []
        var colors: [UInt8] = []
        for y in 0..<400 {
            for x in 0..<600 {
                positions += [Float(x - 300) * 0.01, Float(y - 200) * 0.01, 4]
                colors += [0, 0, 255]
            }
        }
        positions += [0, 0, 2]  // last: in the second thread's range
        colors += [255, 255, 0]
        let renderer = PointRenderer(cloud: PointCloud(positions: positions, colors: colors))
        let style = RenderStyle(color: .rgb, pointSize: 5, background: black)
        let one = try renderer.render(front, style: style, threads: 1).image
        let two = try renderer.render(front, style: style, threads: 2).image
        XCTAssertEqual(one, two, "the picture must not depend on the thread count")
        let centre = 3 * (120 * 320 + 160)
        XCTAssertEqual(Array(two.rgb[centre..<(centre + 3)]), [255, 255, 0])
    }

    /// Points in the plane through the target facing the camera: from azimuth 180 the picture is
    /// the azimuth-0 picture mirrored left to right.
    func testAzimuth180MirrorsLeftAndRight() throws {
        var random = SeededRandom(state: 7)
        var positions: [Float] = []
        var colors: [UInt8] = []
        for _ in 0..<3000 {
            positions += [random.next() * 2 - 1, random.next() * 1.4 - 0.7, 2]
            colors += [UInt8(random.next() * 255), UInt8(random.next() * 255), UInt8(random.next() * 255)]
        }
        // An unmistakable marker on the cloud's right (+x) side.
        positions += [0.8, 0, 2]
        colors += [255, 255, 255]
        let renderer = PointRenderer(cloud: PointCloud(positions: positions, colors: colors))
        let style = RenderStyle(color: .rgb, pointSize: 1, background: black)
        let camera = OrbitCamera(
            target: SIMD3(0, 0, 2), distance: 2.5, azimuth: 0, elevation: 0, fieldOfView: 60,
            up: .cameraFrame, width: 400, height: 300)
        var turned = camera
        turned.azimuth = 180
        let a = try renderer.render(camera, style: style).image
        let b = try renderer.render(turned, style: style).image
        var same = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let (i, j) = (3 * (y * a.width + x), 3 * (y * a.width + a.width - 1 - x))
                if a.rgb[i..<(i + 3)] == b.rgb[j..<(j + 3)] { same += 1 }
            }
        }
        // Pixel boundaries can round a point one column either way; nearly all must match.
        XCTAssertGreaterThan(Double(same) / Double(a.width * a.height), 0.995)
        let whiteA = MarkerColumn.find([255, 255, 255], in: a)
        let whiteB = MarkerColumn.find([255, 255, 255], in: b)
        XCTAssertGreaterThan(whiteA ?? 0, a.width / 2, "+x is on the right at azimuth 0")
        XCTAssertLessThan(whiteB ?? a.width, a.width / 2, "+x is on the left at azimuth 180")
    }

    /// The reset view keeps every point inside the picture, centred, and fills most of it.
    func testResetViewFitsTheWholeCloud() throws {
        var random = SeededRandom(state: 3)
        let positions = (0..<20000).flatMap { _ in [random.next() * 4 - 1, random.next() * 2.5 - 2, random.next() * 3 + 1] }
        let renderer = PointRenderer(cloud: PointCloud(positions: positions))
        for (az, el) in [(Float(0), Float(0)), (45, 30), (200, -20), (90, 89)] {
            let camera = try renderer.camera(for: RenderView(width: 400, height: 300, azimuth: az, elevation: el))
            let positions = renderer.cloud.positions
            var (minX, maxX, minY, maxY) = (Float.infinity, -Float.infinity, Float.infinity, -Float.infinity)
            for i in 0..<(positions.count / 3) {
                let p = try XCTUnwrap(camera.project(SIMD3(positions[3 * i], positions[3 * i + 1], positions[3 * i + 2])))
                (minX, maxX, minY, maxY) = (min(minX, p.x), max(maxX, p.x), min(minY, p.y), max(maxY, p.y))
            }
            XCTAssert(minX >= 0 && maxX <= 400 && minY >= 0 && maxY <= 300, "az \(az) el \(el): \(minX)...\(maxX) x \(minY)...\(maxY)")
            // The margin is 4 % a side: the cloud spans at least 85 % of the width or the height.
            XCTAssert(
                maxX - minX > 340 || maxY - minY > 255,
                "az \(az) el \(el): the cloud fills too little of the view: \(maxX - minX) x \(maxY - minY)")
            XCTAssertEqual((minX + maxX) / 2, 200, accuracy: 8, "az \(az) el \(el): centred across")
            XCTAssertEqual((minY + maxY) / 2, 150, accuracy: 8, "az \(az) el \(el): centred up and down")
        }
    }

    /// A cloud that is a line along the view axis fits with the eye in front of its nearest point,
    /// not on it (where the near plane would cull it): that point is the one the centre shows.
    func testLineAlongTheViewAxisKeepsItsNearestPoint() throws {
        let renderer = PointRenderer(cloud: PointCloud(positions: (0..<5).flatMap { [0, 0, 1 + Float($0)] }))
        let camera = try renderer.camera(for: RenderView(width: 64, height: 48))
        XCTAssertEqual(camera.basis.forward, SIMD3(0, 0, 1), "the default view looks along +z")
        let depth = try XCTUnwrap(camera.project(SIMD3(0, 0, 1))?.depth, "the nearest point is in front of the near plane")
        XCTAssertEqual(depth, 0.2, accuracy: 1e-4, "a tenth of the 2 m radius in front of it")
        let buffer = renderer.rasterise(camera, pointSize: 1)
        let key = buffer.keys[24 * 64 + 32]
        XCTAssertNotEqual(key, DepthBuffer.empty)
        XCTAssertEqual(DepthBuffer.index(key), 0, "the nearest point shows")
    }

    /// An empty cloud draws a frame of background; non-finite points are never drawn.
    func testEmptyAndNonFiniteCloudsDrawBackground() throws {
        let style = RenderStyle(color: .height, pointSize: 2, background: RGB8(r: 9, g: 8, b: 7))
        for cloud in [PointCloud(positions: []), PointCloud(positions: [.nan, 0, 1, 0, .infinity, 2])] {
            let renderer = PointRenderer(cloud: cloud)
            XCTAssertNil(renderer.bounds)
            let image = try renderer.render(renderer.camera(for: RenderView(width: 16, height: 8)), style: style).image
            XCTAssertEqual(image.rgb, [UInt8](repeating: 0, count: 16 * 8).flatMap { _ in [9, 8, 7] })
        }
    }

    /// The one color drawn, or nil when none or several are.
    private func dominant(_ image: ColorImage) -> [UInt8]? {
        var seen = Set<[UInt8]>()
        for i in stride(from: 0, to: image.rgb.count, by: 3) where image.rgb[i..<(i + 3)] != [0, 0, 0] {
            seen.insert(Array(image.rgb[i..<(i + 3)]))
        }
        return seen.count == 1 ? seen.first : nil
    }
}

enum MarkerColumn {
    static func find(_ color: [UInt8], in image: ColorImage) -> Int? {
        for y in 0..<image.height {
            for x in 0..<image.width {
                let i = 3 * (y * image.width + x)
                if Array(image.rgb[i..<(i + 3)]) == color { return x }
            }
        }
        return nil
    }
}
