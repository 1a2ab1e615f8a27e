import CloudCapture
import CloudCore
import XCTest

/// The simulated lens (`distortion=1`) against the scene: rays from the frame's inverse table
/// must meet the room where the rendered depth says, and the color sampled at a depth pixel's own
/// (distorted) position must show the same surface.
final class SyntheticLensTests: XCTestCase {
    let spec = "synthetic:noise=0,distortion=1,format=depth32,depth=128x96,color=512x384,reference=4032x3024"

    func testTheFrameCarriesTablesOfABarrelLens() throws {
        let camera = try syntheticCamera(spec)
        let lens = try XCTUnwrap(camera.renderFrame().distortion)
        XCTAssertNoThrow(try lens.validate(origin: spec))
        XCTAssertEqual(lens.referenceWidth, 4032)
        XCTAssertEqual(lens.lookupTable.count, 42)
        XCTAssertEqual(lens.inverseLookupTable.count, 42)
        XCTAssertEqual(lens.lookupTable.first, 0)
        XCTAssertEqual(lens.lookupTable.last, -0.03)
        XCTAssertTrue(lens.lookupTable.allSatisfy { $0 <= 0 }, "barrel: the lens shrinks radii")
        XCTAssertTrue(lens.inverseLookupTable.allSatisfy { $0 >= 0 }, "rectifying moves points outward")
        XCTAssertNil(try syntheticCamera("synthetic:color=8x6").renderFrame().distortion)
    }

    func testTheLensBendsTheImageAwayFromItsCentre() throws {
        let bent = try renderedDepth(spec)
        let straight = try renderedDepth(spec.replacingOccurrences(of: "distortion=1", with: "distortion=0"))
        // Barrel distortion leaves the centre in place and pulls the edges in.
        let centre = 48 * 128 + 64
        XCTAssertEqual(bent.metres[centre], straight.metres[centre], accuracy: 0.01)
        let changed = zip(bent.metres, straight.metres).filter { abs($0 - $1) > 0.005 }.count
        XCTAssertGreaterThan(changed, bent.metres.count / 5)
    }

    /// Depth and color pass through the same lens, each at its own resolution: rays from the
    /// inverse table, scaled to either image, meet the room where that image says. That is what
    /// lets back-projection sample color at the depth pixel's own (distorted) position.
    func testInverseTableRaysMeetTheRoomWhereDepthAndColorSay() throws {
        let camera = try syntheticCamera(spec)
        let frame = camera.renderFrame()
        let rgbd = try RGBDFrame(decoding: frame, origin: spec)
        let (scene, eye, pose) = (camera.scene, camera.scene.eye, camera.pose)
        func hit(_ rays: RayTable, _ i: Int) throws -> SyntheticScene.Hit {
            let direction = pose.rotate(SIMD3(Double(rays.factors[2 * i]), Double(rays.factors[2 * i + 1]), 1))
            return try XCTUnwrap(scene.intersect(origin: eye, direction: direction))
        }

        let depth = rgbd.depth
        let depthRays = try RayTable(
            intrinsics: frame.intrinsics, distortion: frame.distortion,
            width: depth.width, height: depth.height, origin: spec)
        var depthMisses = 0
        for i in depth.metres.indices where try abs(Double(depth.metres[i]) - hit(depthRays, i).distance) > 0.001 {
            depthMisses += 1
        }

        let color = try XCTUnwrap(rgbd.color)
        let colorRays = try RayTable(
            intrinsics: frame.intrinsics, distortion: frame.distortion,
            width: color.width, height: color.height, origin: spec)
        var (checked, colorMisses) = (0, 0)
        for v in stride(from: 1, to: color.height, by: 3) {
            for u in stride(from: 1, to: color.width, by: 3) {
                let i = v * color.width + u
                let expected = scene.color(of: try hit(colorRays, i))
                // 4:2:0 chroma and rounding move a flat color by a few codes; another surface moves it by tens.
                let error = (0..<3).map { abs(Int(color.rgb[3 * i + $0]) - Int(expected[$0])) }.max()!
                if error > 6 { colorMisses += 1 }
                checked += 1
            }
        }
        print(
            "distorted \(depth.width)x\(depth.height) depth: \(depthMisses) pixels off the scene by > 1 mm; "
                + "\(color.width)x\(color.height) color: \(colorMisses) of \(checked) pixels off the scene's color")
        // Tables interpolate the lens to ~0.001 depth pixels: only a ray grazing an edge may flip surface.
        XCTAssertLessThan(depthMisses, depth.metres.count / 1000)
        // Where two surfaces meet, 4:2:0 chroma mixes their colors: 1.7 % of pixels miss so in an
        // undistorted frame too, 1.8 % here. A color image rendered without the lens misses 4.5 %.
        XCTAssertLessThan(colorMisses, checked / 40)
    }
}
