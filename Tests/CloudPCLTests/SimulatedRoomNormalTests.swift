import CloudCapture
import CloudCore
import CloudPCL
import SharedTestData
import XCTest

/// The must-show on the product's own simulated room (`--source synthetic:noise=0`),
/// through the steps `--normals` runs: normals within 2 degrees of the true surface normals for
/// 99% of the points away from edges, and curvature that tells planes from creases.
final class SimulatedRoomNormalTests: XCTestCase {
    /// A simulated frame as `capture` builds it, organized, with each pixel's true surface.
    struct Capture {
        var cloud: PointCloud
        /// Per pixel: an id per surface face (-1 without a point) and the camera-frame normal.
        var faces: [Int]
        var normals: [SIMD3<Float>]
    }

    func capture(_ spec: String) throws -> Capture {
        let source = try SourceSpec(parsing: spec).open()
        let camera = try XCTUnwrap(source as? SyntheticCamera)
        let frame = try RGBDFrame(decoding: try XCTUnwrap(try source.nextFrame()), origin: spec, colorAtDepthResolution: true)
        let (cloud, _) = try BackProjection(options: .init(organized: true)).run(frame)
        var faceIDs: [String: Int] = [:]
        var faces = [Int](repeating: -1, count: cloud.count)
        var normals = [SIMD3<Float>](repeating: .zero, count: cloud.count)
        for i in 0..<cloud.count where cloud.point(i).z.isFinite {
            // The ray from the camera through the point finds the surface the point lies on.
            let world = camera.pose.apply(SIMD3<Double>(cloud.point(i)))
            let hit = try XCTUnwrap(camera.scene.intersect(origin: camera.pose.translation, direction: world - camera.pose.translation))
            let key = "\(hit.surface) \(hit.normal)"
            faces[i] = faceIDs[key] ?? faceIDs.count
            faceIDs[key] = faces[i]
            normals[i] = SIMD3<Float>(camera.pose.inverseRotate(hit.normal))
        }
        return Capture(cloud: cloud, faces: faces, normals: normals)
    }

    /// The steps the flags stand for, as the CLI parses them, run the way a capture runs them.
    func estimate(_ cloud: PointCloud, flags: [(String, String?)]) throws -> PointCloud {
        let steps = try flags.map { try FilterArguments.step(flag: $0.0, value: $0.1) }
        var warnings: [CloudWarning] = []
        return try FilterPipeline(steps: steps, organized: false).run(cloud, warnings: &warnings).cloud
    }

    func testNormalsOnTheSimulatedRoomMatchItsSurfaces() throws {
        let room = try capture("synthetic:noise=0")
        let radius = CloudFilter.defaultNormalRadius
        let away = pointsAwayFromEdges(room.cloud, faces: room.faces, radius: radius)
        let points = (0..<room.cloud.count).filter { away[$0] }
        XCTAssertGreaterThan(points.count, room.cloud.finiteCount / 2, "most of the room is away from edges")

        // The grid path (a capture's default), and the same points without their grid.
        let unorganized = PointCloud(positions: room.cloud.positions)
        for (name, input) in [("organized", room.cloud), ("unorganized", unorganized)] {
            let cloud = try estimate(input, flags: [("--normals", nil)])
            let normals = try XCTUnwrap(cloud.normals)
            let within = fractionWithin(2, normals, truth: room.normals, points: points)
            XCTAssertGreaterThanOrEqual(within, 0.99, "\(name): \(within * 100)% of \(points.count) points within 2 degrees")
            // The estimate is no lucky draw: most points are far closer than the bound. (The 30 nearest
            // points span a few millimetres and feel the Float16 depth steps more than the grid window.)
            XCTAssertGreaterThanOrEqual(
                fractionWithin(name == "organized" ? 0.5 : 1, normals, truth: room.normals, points: points), 0.9, name)

            // Curvature: flat where the surface is a plane, and high where the radius spans a crease.
            let curvature = try XCTUnwrap(cloud.curvature)
            let flat = points.map { curvature[$0] }.sorted()
            XCTAssertLessThan(flat[flat.count * 99 / 100], 0.005, "\(name): curvature of plane points, 99th percentile")
            let creases = (0..<cloud.count).filter { i in
                room.faces[i] >= 0 && !away[i] && self.onCrease(room, i) && curvature[i].isFinite
            }
            XCTAssertGreaterThan(creases.count, 100, name)
            let bent = creases.map { curvature[$0] }.sorted()
            XCTAssertGreaterThan(bent[bent.count / 2], 0.02, "\(name): median curvature where two faces meet")
        }
    }

    /// Whether pixel `i` has a 4-neighbour on another face whose point is within 2 cm of its own:
    /// a crease (two faces of one corner), not a silhouette against something farther away.
    func onCrease(_ room: Capture, _ i: Int) -> Bool {
        let grid = room.cloud.organized!
        let (x, y) = (i % grid.width, i / grid.width)
        for (qx, qy) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] where qx >= 0 && qy >= 0 && qx < grid.width && qy < grid.height {
            let j = qy * grid.width + qx
            let d = room.cloud.point(j) - room.cloud.point(i)
            if room.faces[j] >= 0 && room.faces[j] != room.faces[i] && (d * d).sum() < 0.02 * 0.02 { return true }
        }
        return false
    }

    /// A pipeline keeps the grid up to `--normals` when no earlier step drops it, and the normals
    /// then come from the grid; after `--voxel` they are fitted to the voxel centroids.
    func testThePipelineKeepsTheGridForNormals() throws {
        let flags = { (args: [String]) in
            try FilterPipeline(
                steps: args.map { try FilterArguments.step(flag: $0, value: $0 == "--voxel" ? "0.02" : $0 == "--sor" ? "20,2" : nil) },
                organized: false)
        }
        XCTAssertTrue(try flags(["--normals"]).wantsGrid)
        XCTAssertTrue(try flags(["--sor", "--normals"]).wantsGrid)
        XCTAssertFalse(try flags(["--voxel", "--normals"]).wantsGrid)
        XCTAssertFalse(try flags(["--sor"]).wantsGrid)

        let room = try capture("synthetic:noise=0")
        let cloud = try estimate(room.cloud, flags: [("--sor", "20,2"), ("--normals", "0.05")])
        XCTAssertNil(cloud.organized, "the placeholders are dropped after the last step that wanted the grid")
        XCTAssertEqual(cloud.count, cloud.finiteCount)
        XCTAssertEqual(cloud.normals?.count, 3 * cloud.count)
        XCTAssertEqual(cloud.curvature?.count, cloud.count)
    }
}
