import CloudCore
import XCTest

@testable import CloudRender

/// The color modes other than rgb, and eye-dome lighting, on scenes whose right answer is known.
final class ShadingTests: XCTestCase {
    private let front = OrbitCamera(
        target: SIMD3(0, 0, 2), distance: 2, azimuth: 0, elevation: 0, fieldOfView: 60,
        up: .cameraFrame, width: 160, height: 120)

    /// A square grid of points at depth `z`, `spacing` apart, `n` on a side, centred on the axis.
    private func square(z: Float, n: Int, spacing: Float) -> [SIMD3<Float>] {
        let half = Float(n - 1) * spacing / 2
        return (0..<n).flatMap { i in (0..<n).map { j in SIMD3(Float(i) * spacing - half, Float(j) * spacing - half, z) } }
    }

    private func pixel(_ image: ColorImage, _ x: Int, _ y: Int) -> SIMD3<UInt8> {
        let i = 3 * (y * image.width + x)
        return SIMD3(image.rgb[i], image.rgb[i + 1], image.rgb[i + 2])
    }

    /// Height colors run from the lowest point's to the highest's along the up axis (-y here: the
    /// point with the largest -y is the top of the map).
    func testHeightColorsFollowTheUpAxis() throws {
        let points: [SIMD3<Float>] = [SIMD3(0, 0.4, 2), SIMD3(0, 0, 2), SIMD3(0, -0.4, 2)]
        let cloud = PointCloud(positions: points.flatMap { [$0.x, $0.y, $0.z] })
        let image = try PointRenderer(cloud: cloud).render(front, style: RenderStyle(color: .height, pointSize: 1, background: black)).image
        for (point, fraction) in zip(points, [Float(0), 0.5, 1]) {
            let p = try XCTUnwrap(front.project(point))
            XCTAssertEqual(pixel(image, Int(p.x), Int(p.y)), Colormap.height(fraction), "\(point)")
        }
        XCTAssertNotEqual(Colormap.height(0), Colormap.height(1))
    }

    /// Normal colors show the side that faces the eye: a wall facing the camera comes out the same
    /// whichever way its normals were stored, as (n + 1) / 2 of the facing normal (0, 0, -1).
    func testNormalColorsShowTheSideFacingTheEye() throws {
        let points = square(z: 2, n: 20, spacing: 0.01)
        let positions = points.flatMap { [$0.x, $0.y, $0.z] }
        var images: [ColorImage] = []
        for nz: Float in [-1, 1] {
            let cloud = PointCloud(positions: positions, normals: points.flatMap { _ in [0, 0, nz] })
            images.append(
                try PointRenderer(cloud: cloud).render(front, style: RenderStyle(color: .normal, pointSize: 2, background: black)).image)
        }
        XCTAssertEqual(images[0], images[1], "unoriented normals are shown facing the eye")
        let centre = try XCTUnwrap(front.project(SIMD3(0, 0, 2)))
        let c = pixel(images[0], Int(centre.x), Int(centre.y))
        XCTAssertEqual(Int(c.x), 127, accuracy: 1)
        XCTAssertEqual(Int(c.y), 127, accuracy: 1)
        XCTAssertEqual(c.z, 0)
    }

    /// Eye-dome lighting darkens the far plane's pixels next to the edge of a nearer square, and
    /// leaves a flat plane seen head-on (no depth steps) exactly as it was.
    func testEyeDomeLightingDarkensWhatLiesBehindAnEdge() throws {
        let far = square(z: 2.5, n: 120, spacing: 0.01)
        let near = square(z: 1.5, n: 30, spacing: 0.005)
        let gray = { (count: Int) in [UInt8](repeating: 200, count: 3 * count) }
        let plane = PointCloud(positions: far.flatMap { [$0.x, $0.y, $0.z] }, colors: gray(far.count))
        let both = PointCloud(positions: (far + near).flatMap { [$0.x, $0.y, $0.z] }, colors: gray(far.count + near.count))
        func draw(_ cloud: PointCloud, edl: Bool) throws -> ColorImage {
            try PointRenderer(cloud: cloud).render(
                front, style: RenderStyle(color: .rgb, pointSize: 3, background: black, eyeDomeLighting: edl)
            ).image
        }
        // The flat plane: the picture's middle (away from the plane's own border) is unchanged.
        let (flat, flatEDL) = (try draw(plane, edl: false), try draw(plane, edl: true))
        let centre = try XCTUnwrap(front.project(SIMD3(0, 0, 2.5)))
        let (cx, cy) = (Int(centre.x), Int(centre.y))
        for dy in -10...10 { for dx in -10...10 { XCTAssertEqual(pixel(flatEDL, cx + dx, cy + dy), pixel(flat, cx + dx, cy + dy)) } }

        // The square in front: just outside its right edge the far plane is darkened, well outside it is not.
        let image = try draw(both, edl: true)
        let edge = try XCTUnwrap(front.project(SIMD3(near.map(\.x).max()!, 0, 1.5)))
        let beside = pixel(image, Int(edge.x) + 2, Int(edge.y))
        let away = pixel(image, Int(edge.x) + 12, Int(edge.y))
        XCTAssertEqual(away, SIMD3(repeating: 200), "far from the edge the plane keeps its color")
        XCTAssertLessThan(beside.x, 150, "next to the nearer square the plane is shaded")
    }
}
