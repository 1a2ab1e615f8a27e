import CloudCapture
import CloudCore
import XCTest

/// The room variants (`shape=`, `door=`, `furniture=`, `yaw=`, `roll=`) against their plan: exact
/// depth back-projected through the delivered pose must land where `RoomTruth` says the room is.
final class SyntheticRoomGeometryTests: XCTestCase {
    func testBoxRoomsPlan() throws {
        let truth = try syntheticCamera("synthetic:room=4x3x2.5,depth=8x6,color=8x6").scene.truth
        XCTAssertEqual(truth.outline, [SIMD2(0, 0), SIMD2(4, 0), SIMD2(4, 3), SIMD2(0, 3)])
        XCTAssertEqual(truth.walls.map(\.wall), [.south, .east, .north, .west])
        XCTAssertEqual(truth.walls.map(\.edge), [0, 1, 2, 3])
        XCTAssertEqual(truth.walls.map(\.length), [4, 3, 4, 3])
        XCTAssertEqual(truth.floorArea, 12, accuracy: 1e-12)
        XCTAssertEqual(truth.perimeter, 14, accuracy: 1e-12)
        XCTAssertEqual(truth.height, 2.5)
        XCTAssertEqual(truth.up, SIMD3(0, 0, 1))
        XCTAssertNil(truth.doorway)
        XCTAssertEqual(try XCTUnwrap(truth.wall(.south)).inwardNormal, SIMD2(0, 1))
    }

    func testLRoomsPlanHasSixWallsAroundTheNotch() throws {
        let scene = try syntheticCamera("synthetic:room=5x4x2.7,shape=L,depth=8x6,color=8x6").scene
        let truth = scene.truth
        XCTAssertEqual(truth.outline, [SIMD2(0, 0), SIMD2(3, 0), SIMD2(3, 1.6), SIMD2(5, 1.6), SIMD2(5, 4), SIMD2(0, 4)])
        XCTAssertEqual(truth.walls.map(\.wall), [.south, .notchWest, .notchNorth, .east, .north, .west])
        let lengths = truth.walls.map(\.length)
        for (l, expected) in zip(lengths, [3, 1.6, 2, 2.4, 5, 4]) { XCTAssertEqual(l, expected, accuracy: 1e-12) }
        XCTAssertEqual(truth.floorArea, 20 - 2 * 1.6, accuracy: 1e-12)
        XCTAssertEqual(truth.perimeter, 18, accuracy: 1e-12, "an L has its bounding box's perimeter")
        let notch = try XCTUnwrap(scene.notch)
        XCTAssertEqual(notch.min, SIMD3(3, 0, 0))
        XCTAssertEqual(notch.max, SIMD3(5, 1.6, 2.7))
        // The camera, its target and all furniture stand in the free part.
        for p in [scene.eye, scene.target] {
            XCTAssertTrue(outlineContains(truth, SIMD2(p.x, p.y)), "\(p)")
        }
        for o in try syntheticCamera("synthetic:room=3x3x2.2,shape=L,furniture=2,depth=8x6,color=8x6").scene.objects {
            XCTAssertFalse(o.max.x > 1.8 && o.min.y < 1.2, "\(o.surface) overlaps the notch of a 3 x 3 room")
        }
    }

    func testYawTurnsThePlanAboutTheEye() throws {
        let plain = try syntheticCamera("synthetic:room=5x4x2.7,shape=L,depth=8x6,color=8x6")
        let turned = try syntheticCamera("synthetic:room=5x4x2.7,shape=L,yaw=30,depth=8x6,color=8x6")
        let (a, b) = (plain.scene.truth, turned.scene.truth)
        let eye = SIMD2(plain.scene.eye.x, plain.scene.eye.y)
        let (c, s) = (cos(Double.pi / 6), sin(Double.pi / 6))
        for (p, q) in zip(a.outline, b.outline) {
            let r = p - eye
            let expected = eye + SIMD2(c * r.x - s * r.y, s * r.x + c * r.y)
            XCTAssertEqual(q.x, expected.x, accuracy: 1e-12)
            XCTAssertEqual(q.y, expected.y, accuracy: 1e-12)
        }
        XCTAssertEqual(b.floorArea, a.floorArea, accuracy: 1e-9, "still counter-clockwise")
        XCTAssertEqual(b.perimeter, a.perimeter, accuracy: 1e-9)
        let south = try XCTUnwrap(b.wall(.south))
        XCTAssertEqual(atan2(south.end.y - south.start.y, south.end.x - south.start.x) * 180 / .pi, 30, accuracy: 1e-9)
        // The first camera keeps its world pose, so it sees the room from another angle.
        XCTAssertEqual(turned.pose.translation, plain.pose.translation)
        for (a, b) in [
            (turned.pose.rotation.0, plain.pose.rotation.0), (turned.pose.rotation.1, plain.pose.rotation.1),
            (turned.pose.rotation.2, plain.pose.rotation.2)
        ] {
            XCTAssertLessThan((a - b).max(), 1e-12)
            XCTAssertGreaterThan((a - b).min(), -1e-12)
        }
        XCTAssertNotEqual(turned.renderFrame().depth.data, plain.renderFrame().depth.data)
    }

    /// Every exact depth of each variant lies on the surface the scene names, and room surfaces
    /// lie on the plan's floor, ceiling or the very wall (within 1 mm); what lies on no wall of
    /// the plan is furniture or the corridor.
    func testExactDepthLiesOnThePlan() throws {
        let variants = [
            "shape=L", "door=1", "furniture=0", "furniture=2", "yaw=30", "roll=20", "yaw=-75,roll=-10",
            "shape=L,door=1,furniture=2,yaw=140,roll=5", "room=7x2.5x3.2,shape=L,door=1,furniture=2"
        ]
        for variant in variants {
            let camera = try syntheticCamera("synthetic:\(variant),noise=0,format=depth32,depth=128x96,color=8x6")
            let (scene, truth) = (camera.scene, camera.scene.truth)
            var seen: [String: Int] = [:]
            for (i, p) in try WorldPoints(camera).points.enumerated() {
                let p = try XCTUnwrap(p, "\(variant): noise=0 leaves no hole at \(i)")
                guard let surface = scene.surface(atWorldPoint: p) else {
                    XCTFail("\(variant): pixel \(i) -> \(p) lies on no surface")
                    continue
                }
                seen["\(surface)", default: 0] += 1
                if let name = truthName(surface) {
                    XCTAssertTrue(truthSurfaces(p, truth).contains(name), "\(variant): pixel \(i) on \(surface) -> \(p)")
                } else if surface == .corridor {
                    XCTAssertFalse(outlineContains(truth, SIMD2(p.x, p.y)), "\(variant): corridor inside the room at \(p)")
                }
            }
            // A turned camera may face a wall close up; otherwise the floor and two walls show.
            XCTAssertGreaterThanOrEqual(seen.count, 2, "\(variant): \(seen)")
            if !variant.contains("yaw") {
                XCTAssertGreaterThan(seen["floor", default: 0], 128 * 96 / 20, "\(variant): \(seen)")
                XCTAssertGreaterThanOrEqual(seen.keys.filter { $0.hasPrefix("wall") }.count, 2, "\(variant): \(seen)")
            }
        }
    }

    func testTheFirstCameraSeesTheLRoomsNotch() throws {
        let camera = try syntheticCamera("synthetic:shape=L,noise=0,format=depth32,depth=128x96,color=8x6")
        let names = try WorldPoints(camera).points.compactMap { $0.flatMap { truthSurface($0, camera.scene.truth) } }
        XCTAssertGreaterThan(names.filter { $0 == "notchWest" || $0 == "notchNorth" }.count, 50)
    }

    /// Rays through the doorway pass the east wall's plane and end in the corridor, farther than
    /// the wall; the wall keeps its full length in the plan.
    func testTheDoorwayOpensOntoTheCorridor() throws {
        let camera = try syntheticCamera("synthetic:door=1,noise=0,format=depth32,depth=128x96,color=8x6")
        let (scene, truth) = (camera.scene, camera.scene.truth)
        let doorway = try XCTUnwrap(truth.doorway)
        XCTAssertEqual(doorway.wall, .east)
        XCTAssertEqual(doorway.width, 0.9, accuracy: 1e-12)
        XCTAssertEqual(doorway.height, 2.0, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(truth.wall(.east)).length, 3)
        XCTAssertEqual(truth.floorArea, 12, accuracy: 1e-12)
        let eye = camera.pose.translation
        var beyond = 0
        for p in try WorldPoints(camera).points.compactMap({ $0 }) where p.x > 4.001 {
            XCTAssertEqual(scene.surface(atWorldPoint: p), .corridor)
            // Where the ray crossed the wall's plane: inside the opening.
            let crossing = eye + (p - eye) * ((4 - eye.x) / (p.x - eye.x))
            XCTAssertTrue(crossing.y > 1.8 && crossing.y < 2.7 && crossing.z < 2.0, "\(p) came through the wall at \(crossing)")
            beyond += 1
        }
        XCTAssertGreaterThan(beyond, 200)
        // Without the door those pixels see the wall.
        let closed = try WorldPoints(try syntheticCamera("synthetic:noise=0,format=depth32,depth=128x96,color=8x6"))
        XCTAssertEqual(closed.points.compactMap { $0 }.filter { $0.x > 4.001 }.count, 0)
    }

    func testFurnitureLevels() throws {
        func scene(_ level: Int) throws -> SyntheticScene {
            try syntheticCamera("synthetic:furniture=\(level),depth=8x6,color=8x6").scene
        }
        XCTAssertTrue(try scene(0).objects.isEmpty)
        XCTAssertNil(try scene(0).tableTopHeight)
        XCTAssertEqual(try scene(1).objects.count, 8)
        let full = try scene(2)
        XCTAssertEqual(full.objects.map(\.surface).suffix(2), [.bookshelf, .sofa])
        XCTAssertEqual(full.objects.prefix(8).map(\.min), try scene(1).objects.map(\.min), "level 2 adds to level 1")
        let shelf = try XCTUnwrap(full.objects.first { $0.surface == .bookshelf })
        XCTAssertEqual(shelf.max.z, 1.8, accuracy: 1e-12)
        XCTAssertEqual(shelf.max.y, 3, accuracy: 1e-12, "against the north wall")
        let sofa = try XCTUnwrap(full.objects.first { $0.surface == .sofa })
        XCTAssertEqual(sofa.min.x, 0, accuracy: 1e-12, "against the west wall")
        XCTAssertEqual(full.truth.walls.count, 4, "furniture adds no wall")
    }

    /// The bookshelf stands in view in front of the north wall: its front is a tall vertical plane
    /// 35 cm off the wall, which the plan does not count, and the wall is hidden behind it.
    func testTheBookshelfHidesTheLowerWallAndIsNoWall() throws {
        func points(_ level: Int) throws -> (SyntheticCamera, [SIMD3<Double>]) {
            let camera = try syntheticCamera("synthetic:furniture=\(level),noise=0,format=depth32,depth=128x96,color=8x6")
            return (camera, try WorldPoints(camera).points.compactMap { $0 })
        }
        let (camera, withShelf) = try points(2)
        let front = withShelf.filter { camera.scene.surface(atWorldPoint: $0) == .bookshelf && abs($0.y - 2.65) < 0.001 }
        XCTAssertGreaterThan(front.count, 100)
        XCTAssertTrue(front.allSatisfy { truthSurfaces($0, camera.scene.truth).isEmpty })
        func lowNorthWall(_ ps: [SIMD3<Double>], _ truth: RoomTruth) -> Int {
            // Inside the shelf's span by more than a pixel's footprint at its sides.
            ps.filter { truthSurface($0, truth) == "north" && $0.x > 2.65 && $0.x < 3.45 && $0.z < 1.75 }.count
        }
        XCTAssertEqual(lowNorthWall(withShelf, camera.scene.truth), 0)
        let (plain, without) = try points(1)
        XCTAssertGreaterThan(lowNorthWall(without, plain.scene.truth), 100)
    }

    /// Roll turns the camera about its optical axis: the delivered pose is the upright one turned in
    /// the camera's own frame, and each pixel's depth is the upright camera's along the turned ray.
    func testRollTurnsTheCamerasView() throws {
        let upright = try syntheticCamera("synthetic:noise=0,format=depth32,depth=64x48,color=8x6")
        let rolled = try syntheticCamera("synthetic:roll=25,noise=0,format=depth32,depth=64x48,color=8x6")
        let (c, s) = (cos(25 * Double.pi / 180), sin(25 * Double.pi / 180))
        let r = upright.pose
        func axis(_ p: Pose, _ i: Int) -> SIMD3<Double> { p.rotate(SIMD3(i == 0 ? 1 : 0, i == 1 ? 1 : 0, i == 2 ? 1 : 0)) }
        let right = axis(rolled.pose, 0)
        let expected = axis(r, 0) * c + axis(r, 1) * s
        func distance(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { ((a - b) * (a - b)).sum().squareRoot() }
        XCTAssertLessThan(distance(right, expected), 1e-12, "x turns toward y: clockwise seen from behind")
        XCTAssertLessThan(distance(axis(rolled.pose, 2), axis(r, 2)), 1e-12, "the optical axis stays")
        XCTAssertEqual(rolled.pose.translation, r.translation)
        let k = rolled.intrinsics.scaled(toWidth: 64, height: 48)
        let depth = try WorldPoints(rolled)
        for v in stride(from: 0, to: 48, by: 3) {
            for u in stride(from: 0, to: 64, by: 3) {
                let ray = k.backProject(u: Double(u), v: Double(v), z: 1)
                let turned = SIMD3(c * ray.x - s * ray.y, s * ray.x + c * ray.y, 1)
                let hit = try XCTUnwrap(upright.scene.intersect(origin: r.translation, direction: r.rotate(turned)))
                let p = try XCTUnwrap(depth.points[v * 64 + u])
                let z = rolled.pose.inverse(p).z
                XCTAssertEqual(z, hit.distance, accuracy: 1e-5 * hit.distance, "(\(u), \(v)) on \(hit.surface)")
            }
        }
    }

    /// An orbit of every shape stays in the free part and sees every wall of the plan; a walk
    /// stays in the free part too.
    func testPathsStayInsideAndTheOrbitSeesEveryWall() throws {
        for variant in [
            "room=4x3x2.5", "shape=L", "shape=L,door=1,furniture=2", "room=3x3x2.2,shape=L,furniture=2",
            "room=8x2.5x3,shape=L,yaw=50", "room=2.2x6x2.4,shape=L,roll=10"
        ] {
            let orbit = try syntheticCamera("synthetic:\(variant),path=orbit,noise=0,format=depth32,depth=48x36,color=8x6")
            let truth = orbit.scene.truth
            var hits: [String: Int] = [:]
            for i in 0..<orbit.poses.count {
                let eye = orbit.poses[i].translation
                XCTAssertTrue(outlineContains(truth, SIMD2(eye.x, eye.y)), "\(variant): frame \(i) at \(eye)")
                for p in try WorldPoints(orbit, frame: i).points.compactMap({ $0 }) {
                    if let name = truthSurface(p, truth) { hits[name, default: 0] += 1 }
                }
            }
            for wall in truth.walls {
                XCTAssertGreaterThan(hits[wall.wall.rawValue, default: 0], 20, "\(variant): \(wall.wall) unseen in \(hits)")
            }
            let walk = try syntheticCamera("synthetic:\(variant),path=walk,noise=0,depth=8x6,color=8x6")
            for p in walk.poses {
                XCTAssertTrue(outlineContains(truth, SIMD2(p.translation.x, p.translation.y)), "\(variant): walk at \(p.translation)")
            }
        }
    }

    /// In tiny, long and tall rooms everything of the variants stays in the free part of the room,
    /// and every exact depth still lands on a surface.
    func testExtremeRoomsKeepEverythingInTheFreePart() throws {
        for room in ["0.5x0.4x0.3", "100x0.5x2.5", "12x9x30"] {
            let camera = try syntheticCamera(
                "synthetic:room=\(room),shape=L,door=1,furniture=2,noise=0,format=depth32,depth=64x48,color=8x6")
            let (scene, truth) = (camera.scene, camera.scene.truth)
            let notch = try XCTUnwrap(scene.notch)
            func inNotch(_ lo: SIMD3<Double>, _ hi: SIMD3<Double>) -> Bool { all(hi .> notch.min .& lo .< notch.max) }
            XCTAssertFalse(inNotch(scene.eye, scene.eye), room)
            XCTAssertFalse(inNotch(scene.target, scene.target), room)
            for o in scene.objects {
                XCTAssertTrue(all(o.min .>= 0 .& o.max .<= scene.size), "\(room): \(o.surface) sticks out")
                XCTAssertFalse(inNotch(o.min, o.max), "\(room): \(o.surface) in the notch")
                XCTAssertFalse(all(scene.eye .>= o.min .& scene.eye .<= o.max), "\(room): camera inside \(o.surface)")
                for other in scene.objects
                where other.surface != o.surface && [o.surface, other.surface].contains(where: { [.bookshelf, .sofa].contains($0) }) {
                    XCTAssertFalse(all(o.max .> other.min .& o.min .< other.max), "\(room): \(o.surface) overlaps \(other.surface)")
                }
            }
            let tolerance = 1e-4 * scene.size.max()
            for p in try WorldPoints(camera).points {
                let p = try XCTUnwrap(p)
                let surface = try XCTUnwrap(scene.surface(atWorldPoint: p, tolerance: tolerance), "\(room): \(p)")
                if let name = truthName(surface) {
                    XCTAssertTrue(truthSurfaces(p, truth, tolerance: tolerance).contains(name), "\(room): \(p) on \(surface)")
                }
            }
            for path in ["orbit", "walk"] {
                for pose in try syntheticCamera("synthetic:room=\(room),shape=L,furniture=2,path=\(path),depth=8x6,color=8x6").poses {
                    let eye = pose.translation
                    XCTAssertTrue(outlineContains(truth, SIMD2(eye.x, eye.y)), "\(room) \(path): \(eye)")
                    for o in scene.objects {
                        XCTAssertFalse(all(eye .>= o.min .& eye .<= o.max), "\(room) \(path): camera inside \(o.surface)")
                    }
                }
            }
        }
    }

    /// The new keys at their defaults change nothing: the same bytes and poses as before them.
    func testDefaultsAreTheRoomAsBefore() throws {
        for base in ["synthetic:color=32x24", "synthetic:path=orbit,frames=3,depth=32x24,color=32x24"] {
            let plain = try syntheticCamera(base)
            let spelt = try syntheticCamera(base + ",shape=box,door=0,furniture=1,yaw=0,roll=0")
            XCTAssertEqual(spelt.name, plain.name)
            XCTAssertEqual(spelt.poses, plain.poses)
            for i in plain.poses.indices {
                XCTAssertEqual(spelt.renderFrame(i).depth.data, plain.renderFrame(i).depth.data)
                XCTAssertEqual(spelt.renderFrame(i).color?.planes, plain.renderFrame(i).color?.planes)
            }
        }
    }
}

extension Pose {
    fileprivate func inverse(_ p: SIMD3<Double>) -> SIMD3<Double> { inverseRotate(p - translation) }
}
