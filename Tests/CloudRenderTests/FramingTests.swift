import CloudCore
import XCTest

@testable import CloudRender

/// The reset view's framing works with the camera's basis computed once and its points split
/// across the cores; here it is checked against the plain way of writing it (every point through
/// `OrbitCamera.project` and a basis of its own, one pass in order) on a cloud whose bounds are
/// known, large enough to be split.
final class FramingTests: XCTestCase {
    /// A box's eight corners (so its bounds are exact), random points inside, and points that are
    /// not finite, which framing must skip.
    static let lower = SIMD3<Float>(-1.5, -0.8, 2)
    static let upper = SIMD3<Float>(2.5, 1.2, 7)

    static func boxCloud(points: Int) -> PointCloud {
        var random = SeededRandom(state: 19)
        var positions: [Float] = []
        for corner in 0..<8 {
            for axis in 0..<3 { positions.append(corner >> axis & 1 == 0 ? lower[axis] : upper[axis]) }
        }
        for _ in 0..<points {
            for axis in 0..<3 { positions.append(lower[axis] + random.next() * (upper[axis] - lower[axis])) }
        }
        positions += [.nan, 0, 3, 0, .infinity, 4, 1, 1, -.infinity]
        return PointCloud(positions: positions)
    }

    /// The distance that fits every point, each projected through a basis built for it alone.
    static func referenceDistance(_ camera: OrbitCamera, _ points: [SIMD3<Float>]) -> Float {
        let (halfW, halfH) = (Float(camera.width) / 2 * 0.92, Float(camera.height) / 2 * 0.92)
        var (needed, radius, nearest): (Float, Float, Float) = (0, 0, .infinity)
        for p in points where p.x.isFinite && p.y.isFinite && p.z.isFinite {
            let b = camera.basis
            let c = p - camera.target
            let (x, y, z) = ((c * b.right).sum(), (c * b.up).sum(), (c * b.forward).sum())
            needed = max(needed, camera.focal * abs(x) / halfW - z, camera.focal * abs(y) / halfH - z)
            radius = max(radius, (c * c).sum())
            nearest = min(nearest, z)
        }
        radius = radius.squareRoot()
        return radius > 0 ? max(needed, radius * 0.1 - min(nearest, 0)) : 1
    }

    /// The target moved so that the projected extent (every point through `project`) is centred.
    static func referenceCentred(_ camera: OrbitCamera, _ points: [SIMD3<Float>]) -> OrbitCamera {
        var (minX, maxX, minY, maxY) = (Float.infinity, -Float.infinity, Float.infinity, -Float.infinity)
        for p in points {
            guard let q = camera.project(p), q.x.isFinite, q.y.isFinite else { continue }
            (minX, maxX, minY, maxY) = (min(minX, q.x), max(maxX, q.x), min(minY, q.y), max(maxY, q.y))
        }
        var moved = camera
        let dx = ((minX + maxX) / 2 - Float(camera.width) / 2) * camera.distance / camera.focal
        let dy = ((minY + maxY) / 2 - Float(camera.height) / 2) * camera.distance / camera.focal
        moved.target = camera.target + dx * camera.basis.right - dy * camera.basis.up
        return moved
    }

    func testHoistedFramingGivesTheReferenceCamera() throws {
        let cloud = Self.boxCloud(points: 250_000)
        XCTAssertGreaterThanOrEqual(cloud.count, ParallelPoints.threshold, "large enough to be split across the cores")
        let renderer = PointRenderer(cloud: cloud)
        let bounds = try XCTUnwrap(renderer.bounds)
        XCTAssertEqual(bounds.min, Self.lower, "the generated cloud's bounds are the box's")
        XCTAssertEqual(bounds.max, Self.upper)
        let points = (0..<cloud.count).map(cloud.point)
        for (azimuth, elevation, up) in [(Float(0), Float(0), UpAxis.cameraFrame), (200, -40, .cameraFrame), (120, 60, .worldFrame)] {
            let view = RenderView(width: 1280, height: 720, azimuth: azimuth, elevation: elevation, up: up)
            let camera = try renderer.camera(for: view)
            // PointRenderer.camera's rounds: fit, then centre and fit again four times.
            var reference = OrbitCamera(
                target: (Self.lower + Self.upper) / 2, distance: 1, azimuth: azimuth, elevation: elevation,
                fieldOfView: view.fieldOfView, up: up, width: 1280, height: 720)
            reference.distance = Self.referenceDistance(reference, points)
            for _ in 0..<4 {
                reference = Self.referenceCentred(reference, points)
                reference.distance = Self.referenceDistance(reference, points)
            }
            let context = "azimuth \(azimuth), elevation \(elevation), up \(up)"
            XCTAssertEqual(camera.distance, reference.distance, accuracy: 1e-5 * reference.distance, context)
            for axis in 0..<3 {
                XCTAssertEqual(camera.target[axis], reference.target[axis], accuracy: 1e-5 * reference.distance, context)
            }
            // And the framing is a real one: the box's corners, its extreme points, are in the picture.
            for corner in points.prefix(8) {
                let q = try XCTUnwrap(camera.project(corner), context)
                XCTAssert((0...1280).contains(q.x) && (0...720).contains(q.y), "\(context): corner \(corner) at \(q)")
            }
        }
    }

    /// Splitting the points may not change the result: the same framing over fewer points than
    /// the split starts at, padded with copies of them, gives the same camera.
    func testSplitAndUnsplitFramingAgree() throws {
        let small = Self.boxCloud(points: 5_000)
        let copies = ParallelPoints.threshold / small.count + 1
        let large = PointCloud(positions: Array([[Float]](repeating: small.positions, count: copies).joined()))
        let view = RenderView(width: 640, height: 480, azimuth: 70, elevation: 15)
        let one = try PointRenderer(cloud: small).camera(for: view)
        let split = try PointRenderer(cloud: large).camera(for: view)
        XCTAssertEqual(one, split, "min and max over the parts are the min and max over the whole")
    }
}
