import CloudCore
import XCTest

@testable import CloudRender

/// Points at known positions land where a pinhole camera says they should.
final class PinholeGeometryTests: XCTestCase {
    private let markers = MarkerCloud(points: [
        SIMD3(0, 0, 2), SIMD3(0.5, 0.25, 3), SIMD3(-0.6, 0.3, 2.5), SIMD3(0.3, -0.4, 1.5), SIMD3(-0.2, -0.2, 2.8),
        SIMD3(0.7, 0.5, 2.2), SIMD3(-0.5, -0.45, 1.8)
    ])

    private func render(_ camera: OrbitCamera) throws -> ColorImage {
        let renderer = PointRenderer(cloud: markers.cloud)
        return try renderer.render(camera, style: RenderStyle(color: .rgb, pointSize: 1, background: black)).image
    }

    /// Azimuth 0, elevation 0 on a camera-frame cloud is the capturing camera's view moved back
    /// along its axis: worked out by hand, no camera code involved.
    func testFrontViewMatchesHandWorkedPinhole() throws {
        let camera = OrbitCamera(
            target: SIMD3(0, 0, 2), distance: 2, azimuth: 0, elevation: 0, fieldOfView: 60,
            up: .cameraFrame, width: 640, height: 480)
        let image = try render(camera)
        let focal = Float(240 / tan(Double.pi / 6))
        for (i, p) in markers.points.enumerated() {
            // The eye is at the origin: x right, y down, z forward, as the capturing camera.
            let expected = (x: 320 + focal * p.x / p.z, y: 240 + focal * p.y / p.z)
            try assertLanded(i, in: image, at: expected)
        }
    }

    /// Azimuth 90 looks along +x (from the cloud's left): the image's right is −z, its up −y.
    func testSideViewMatchesHandWorkedPinhole() throws {
        let camera = OrbitCamera(
            target: SIMD3(0, 0, 2), distance: 3, azimuth: 90, elevation: 0, fieldOfView: 50,
            up: .cameraFrame, width: 800, height: 600)
        let image = try render(camera)
        let focal = Float(300 / tan(25 * Double.pi / 180))
        for (i, p) in markers.points.enumerated() {
            let depth = p.x + 3  // the eye is at (−3, 0, 2)
            let expected = (x: 400 + focal * -(p.z - 2) / depth, y: 300 + focal * p.y / depth)
            try assertLanded(i, in: image, at: expected)
        }
    }

    /// Straight down from above (elevation 90, camera frame's up is −y): the image's right stays +x
    /// and its up is +z.
    func testTopViewMatchesHandWorkedPinhole() throws {
        let camera = OrbitCamera(
            target: SIMD3(0, 0, 2), distance: 4, azimuth: 0, elevation: 90, fieldOfView: 40,
            up: .cameraFrame, width: 500, height: 500)
        let image = try render(camera)
        let focal = Float(250 / tan(20 * Double.pi / 180))
        for (i, p) in markers.points.enumerated() {
            let depth = p.y + 4  // the eye is at (0, −4, 2), looking along +y
            let expected = (x: 250 + focal * p.x / depth, y: 250 - focal * (p.z - 2) / depth)
            try assertLanded(i, in: image, at: expected)
        }
    }

    /// Oblique orbits against the textbook look-at construction, in both frames' conventions.
    func testObliqueOrbitsMatchLookAtPinhole() throws {
        let cases: [(az: Double, el: Double, d: Float, fov: Double, up: UpAxis)] = [
            (30, 20, 3, 60, .cameraFrame), (-45, -35, 2.5, 45, .cameraFrame), (135, 60, 4, 70, .cameraFrame),
            (200, 10, 3.5, 55, .worldFrame), (-80, 45, 5, 40, .worldFrame), (10, -70, 3, 90, UpAxis(axis: 0, negative: false))
        ]
        let target = SIMD3<Float>(0.05, -0.02, 2.1)
        for c in cases {
            let camera = OrbitCamera(
                target: target, distance: c.d, azimuth: Float(c.az), elevation: Float(c.el),
                fieldOfView: Float(c.fov), up: c.up, width: 640, height: 400)
            let image = try render(camera)
            let (f, r) = OrbitCamera.reference(for: c.up)
            let pinhole = LookAtPinhole(
                target: target, distance: c.d, azimuthDegrees: c.az, elevationDegrees: c.el,
                forward: f, right: r, up: c.up.vector, fovDegrees: c.fov, width: 640, height: 400)
            for (i, p) in markers.points.enumerated() {
                try assertLanded(i, in: image, at: pinhole.project(p), context: "az \(c.az) el \(c.el) up \(c.up)")
            }
        }
    }

    /// The reference directions make +x point right at azimuth 0 in both frames, and look along
    /// +z (camera frame) or +y (world frame).
    func testReferenceDirections() {
        XCTAssertEqual(OrbitCamera.reference(for: .cameraFrame).forward, SIMD3(0, 0, 1))
        XCTAssertEqual(OrbitCamera.reference(for: .cameraFrame).right, SIMD3(1, 0, 0))
        XCTAssertEqual(OrbitCamera.reference(for: .worldFrame).forward, SIMD3(0, 1, 0))
        XCTAssertEqual(OrbitCamera.reference(for: .worldFrame).right, SIMD3(1, 0, 0))
    }

    private func assertLanded(
        _ i: Int, in image: ColorImage, at expected: (x: Float, y: Float), context: String = "",
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let found = MarkerCloud.pixels(of: i, in: image)
        XCTAssertEqual(found.count, 1, "point \(i) \(context): drawn on \(found.count) pixels", file: file, line: line)
        guard let pixel = found.first else { return }
        XCTAssertLessThanOrEqual(
            abs(pixel.x - expected.x), 1, "point \(i) \(context): column \(pixel.x) vs \(expected.x)", file: file, line: line)
        XCTAssertLessThanOrEqual(
            abs(pixel.y - expected.y), 1, "point \(i) \(context): row \(pixel.y) vs \(expected.y)", file: file, line: line)
    }
}
