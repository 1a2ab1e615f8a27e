import CloudCapture
import CloudCore
import XCTest

/// The simulated camera against its own scene description: back-projected depth must land on the
/// room's surfaces, and colors must be the surfaces' colors.
final class SyntheticGroundTruthTests: XCTestCase {
    func testBackProjectedDepthLiesOnTheRoomsSurfaces() throws {
        let camera = try syntheticCamera("synthetic:noise=0,format=depth32,color=64x48")
        let frame = try RGBDFrame(decoding: try XCTUnwrap(try camera.nextFrame()), origin: camera.name)
        let scene = camera.scene
        let pose = try XCTUnwrap(frame.pose)
        let depth = frame.depth
        let k = frame.intrinsics.scaled(toWidth: depth.width, height: depth.height)
        let tolerance = 0.001
        var counts: [SyntheticScene.Surface: Int] = [:]
        var onTableTop = 0
        let table = try XCTUnwrap(scene.objects.first { $0.surface == .tableTop })
        let topBox = try XCTUnwrap(scene.objects.first { $0.surface == .box(2) })
        XCTAssertEqual(table.max.z, 0.75, accuracy: 1e-12)
        XCTAssertEqual(scene.tableTopHeight, table.max.z)

        for v in 0..<depth.height {
            for u in 0..<depth.width {
                let z = Double(depth.metres[v * depth.width + u])
                XCTAssertGreaterThan(z, 0, "noise=0 leaves no hole (\(u), \(v))")
                let p = pose.apply(k.backProject(u: Double(u), v: Double(v), z: z))
                let inRoom = (p .>= SIMD3(repeating: -tolerance) .& (p .<= scene.size + tolerance))
                XCTAssertTrue(all(inRoom), "(\(u), \(v)) -> \(p) is outside the room")
                guard let surface = scene.surface(atWorldPoint: p, tolerance: tolerance) else {
                    XCTFail("(\(u), \(v)) -> \(p) lies on no surface")
                    continue
                }
                counts[surface, default: 0] += 1
                let onTop =
                    abs(p.z - table.max.z) < tolerance
                    && p.x > table.min.x && p.x < table.max.x && p.y > table.min.y && p.y < table.max.y
                let underTopBox = p.x > topBox.min.x && p.x < topBox.max.x && p.y > topBox.min.y && p.y < topBox.max.y
                if onTop && !underTopBox { onTableTop += 1 }
            }
        }
        let pixels = depth.width * depth.height
        XCTAssertGreaterThan(counts[.floor, default: 0], pixels / 10, "\(counts)")
        XCTAssertGreaterThan(counts[.wall(.east), default: 0], 0, "\(counts)")
        XCTAssertGreaterThan(counts[.wall(.north), default: 0], 0, "\(counts)")
        XCTAssertEqual(counts[.ceiling, default: 0], 0, "the camera looks down: \(counts)")
        XCTAssertEqual(counts[.wall(.west), default: 0] + counts[.wall(.south), default: 0], 0, "behind the camera")
        for i in 0..<3 {
            XCTAssertGreaterThan(counts[.box(i), default: 0], 50, "box \(i) in view: \(counts)")
        }
        XCTAssertGreaterThan(onTableTop, 200, "points on the table's upper face")
    }

    /// The depth plane against an independent cast of each pixel's ray (through `backProject` at
    /// depth 1, i.e. the pixel centre under the scaled intrinsics), with no image-space culling.
    func testDepthIsTheOpticalAxisDistanceThroughEachPixelCentre() throws {
        let camera = try syntheticCamera("synthetic:room=3.2x5x2.4,noise=0,format=depth32,depth=160x90,color=64x36")
        let depth = try renderedDepth(camera.name)
        let k = camera.intrinsics.scaled(toWidth: 160, height: 90)
        for v in 0..<90 {
            for u in 0..<160 {
                let ray = camera.pose.rotate(k.backProject(u: Double(u), v: Double(v), z: 1))
                let hit = try XCTUnwrap(camera.scene.intersect(origin: camera.scene.eye, direction: ray))
                let z = depth.metres[v * 160 + u]
                XCTAssertEqual(Double(z), hit.distance, accuracy: hit.distance * 1e-6, "(\(u), \(v)) hits \(hit.surface)")
            }
        }
    }

    func testSmallAndLargeRoomsKeepEverythingInside() throws {
        for room in ["0.5x0.4x0.3", "100x0.5x2.5", "12x9x30"] {
            let camera = try syntheticCamera("synthetic:room=\(room),noise=0,format=depth32,depth=64x48,color=8x6")
            let scene = camera.scene
            XCTAssertTrue(all(scene.eye .> 0 .& scene.eye .< scene.size), room)
            for o in scene.objects {
                XCTAssertTrue(all(o.min .>= 0 .& o.max .<= scene.size), "\(room): \(o.surface) sticks out")
                XCTAssertFalse(all(scene.eye .>= o.min .& scene.eye .<= o.max), "\(room): camera inside \(o.surface)")
            }
            let depth = try renderedDepth(camera.name)
            let k = camera.intrinsics.scaled(toWidth: 64, height: 48)
            var floor = 0
            for v in 0..<48 {
                for u in 0..<64 {
                    let p = camera.pose.apply(k.backProject(u: Double(u), v: Double(v), z: Double(depth.metres[v * 64 + u])))
                    let surface = scene.surface(atWorldPoint: p, tolerance: 1e-4 * scene.size.max())
                    XCTAssertNotNil(surface, "\(room): (\(u), \(v)) -> \(p)")
                    if surface == .floor { floor += 1 }
                }
            }
            XCTAssertGreaterThan(floor, 64 * 48 / 100, "\(room): the floor is in view")
        }
    }

    /// Colors come through YUV 4:2:0 and the real decoder as the scene's shaded surface colors,
    /// which are each surface's own color scaled by the lighting.
    func testDecodedColorsAreTheSurfaceColors() throws {
        let camera = try syntheticCamera("synthetic:color=480x360,depth=8x6")
        let image = try ColorImage(decoding: try XCTUnwrap(camera.renderFrame().color), origin: camera.name)
        let scene = camera.scene
        let k = camera.intrinsics.scaled(toWidth: image.width, height: image.height)
        func hit(_ u: Int, _ v: Int) throws -> SyntheticScene.Hit {
            try XCTUnwrap(
                scene.intersect(origin: scene.eye, direction: camera.pose.rotate(k.backProject(u: Double(u), v: Double(v), z: 1))))
        }
        var checked: [String: Int] = [:]
        for v in stride(from: 4, to: image.height, by: 16) {
            for u in stride(from: 6, to: image.width, by: 16) {
                // Only pixels whose whole 2x2 chroma block sees one flat color on one face (no edge,
                // no tile seam), so that averaging its chroma mixes nothing.
                let block = try [(0, 0), (1, 0), (0, 1), (1, 1)].map { try hit(u + $0.0, v + $0.1) }
                let albedo = scene.albedo(of: block[0].surface, at: block[0].point)
                guard
                    block.allSatisfy({
                        $0.surface == block[0].surface && $0.normal == block[0].normal
                            && scene.albedo(of: $0.surface, at: $0.point) == albedo
                    })
                else { continue }
                let i = 3 * (v * image.width + u)
                let decoded = SIMD3<Int>(Int(image.rgb[i]), Int(image.rgb[i + 1]), Int(image.rgb[i + 2]))
                let expected = SIMD3<Int>(truncatingIfNeeded: scene.color(of: block[0]))
                XCTAssertLessThanOrEqual((decoded &- expected).abs().max(), 3, "(\(u), \(v)) on \(block[0].surface)")

                // Shading scales the surface color: decoded ~ k * albedo with ambient <= k <= 1.
                let a = SIMD3<Double>(Double(albedo.x), Double(albedo.y), Double(albedo.z))
                let d = SIMD3<Double>(Double(decoded.x), Double(decoded.y), Double(decoded.z))
                let factor = (a * d).sum() / (a * a).sum()
                XCTAssertGreaterThanOrEqual(factor, SyntheticScene.ambient - 0.02)
                XCTAssertLessThanOrEqual(factor, 1.02)
                XCTAssertLessThanOrEqual((d - a * factor).abs().max(), 3.5, "(\(u), \(v)): hue of \(block[0].surface)")
                checked["\(block[0].surface) \(albedo)", default: 0] += 1
            }
        }
        let palette = SyntheticScene.Palette.self
        for (surface, albedo) in [
            ("floor", palette.floorLight), ("floor", palette.floorDark),
            ("wall(CloudCapture.SyntheticScene.Wall.east)", palette.wall(.east)),
            ("wall(CloudCapture.SyntheticScene.Wall.north)", palette.wall(.north)),
            ("tableTop", palette.tableTop),
            ("box(0)", palette.boxes[0]), ("box(1)", palette.boxes[1])
        ] {
            XCTAssertGreaterThan(checked["\(surface) \(albedo)", default: 0], 0, "no clean pixel on \(surface): \(checked.keys)")
        }
    }

    func testSurfacesAreDistinguishableByColor() {
        let p = SyntheticScene.Palette.self
        let colors = [p.floorLight, p.floorDark, p.ceiling, p.tableTop, p.tableLeg] + SyntheticScene.Wall.allCases.map(p.wall) + p.boxes
        XCTAssertEqual(Set(colors).count, colors.count)
    }
}

extension SIMD3 where Scalar == Int {
    fileprivate func abs() -> SIMD3<Int> { SIMD3(Swift.abs(x), Swift.abs(y), Swift.abs(z)) }
}

extension SIMD3 where Scalar == Double {
    fileprivate func abs() -> SIMD3<Double> { SIMD3(Swift.abs(x), Swift.abs(y), Swift.abs(z)) }
}
