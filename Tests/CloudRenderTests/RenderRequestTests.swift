import CloudCore
import XCTest

@testable import CloudRender

/// Requests that cannot make a picture are refused with the flag named; color modes need the
/// data they draw.
final class RenderRequestTests: XCTestCase {
    func testInvalidViewsAreRefused() {
        let bad: [(RenderView, String)] = [
            (RenderView(width: 0, height: 720), "--size"), (RenderView(width: 16385, height: 10), "--size"),
            (RenderView(width: 100, height: -1), "--size"), (RenderView(azimuth: .nan), "--azimuth"),
            (RenderView(azimuth: .infinity), "--azimuth"), (RenderView(elevation: 91), "--elevation"),
            (RenderView(elevation: .nan), "--elevation"), (RenderView(distance: 0), "--distance"),
            (RenderView(distance: -.infinity), "--distance"), (RenderView(fieldOfView: 180), "--fov"),
            (RenderView(fieldOfView: .nan), "--fov")
        ]
        for (view, flag) in bad {
            XCTAssertThrowsError(try view.validate(), "\(view)") { error in
                let e = error as? CloudError
                XCTAssertEqual(e?.kind, .badInput)
                XCTAssertTrue(e?.message.hasPrefix(flag) ?? false, e?.message ?? "")
            }
        }
        XCTAssertNoThrow(try RenderView(width: 16384, height: 1, azimuth: -720, elevation: -90, fieldOfView: 170).validate())
    }

    func testColorModesNeedTheirData() {
        let bare = PointRenderer(cloud: PointCloud(positions: [0, 0, 1]))
        XCTAssertThrowsError(try bare.check(.rgb))
        XCTAssertThrowsError(try bare.check(.normal))
        XCTAssertNoThrow(try bare.check(.depth))
        XCTAssertEqual(bare.defaultColorMode, .height)
        XCTAssertEqual(PointRenderer(cloud: PointCloud(positions: [0, 0, 1], colors: [1, 2, 3])).defaultColorMode, .rgb)
    }

    /// Coordinates near Float's limit overflow the framing camera: refused, naming the file,
    /// rather than drawn blank from an infinite eye.
    func testCoordinatesTooLargeToFrameAreRefused() {
        let renderer = PointRenderer(cloud: PointCloud(positions: [-3e38, 0, 1, 3e38, 0, 1]), origin: "huge.ply")
        XCTAssertThrowsError(try renderer.camera(for: RenderView())) { error in
            let e = error as? CloudError
            XCTAssertEqual(e?.kind, .badInput)
            XCTAssertTrue(e?.message.hasPrefix("huge.ply: coordinates too large to frame") ?? false, e?.message ?? "")
        }
        XCTAssertThrowsError(try renderer.turntableCameras(for: RenderView(), frames: 4))
        XCTAssertNoThrow(try PointRenderer(cloud: PointCloud(positions: [-3e5, 0, 1, 3e5, 0, 1])).camera(for: RenderView()))
    }

    func testUpAxisAndBackgroundSyntax() {
        XCTAssertEqual(UpAxis("-y"), .cameraFrame)
        XCTAssertEqual(UpAxis("+Z"), .worldFrame)
        XCTAssertEqual(UpAxis("x"), UpAxis(axis: 0, negative: false))
        XCTAssertNil(UpAxis("w"))
        XCTAssertNil(UpAxis("--y"))
        XCTAssertEqual(RGB8("#102030"), RGB8(r: 16, g: 32, b: 48))
        XCTAssertEqual(RGB8("white"), RGB8(r: 255, g: 255, b: 255))
        XCTAssertNil(RGB8("#12345"))
    }

    /// Jet runs dark blue, blue, cyan, green-yellow, red, dark red.
    func testJetColormapStops() {
        XCTAssertEqual(Colormap.jet(0), SIMD3(0, 0, 128))
        XCTAssertEqual(Colormap.jet(0.5), SIMD3(128, 255, 128))
        XCTAssertEqual(Colormap.jet(1), SIMD3(128, 0, 0))
        XCTAssertEqual(Colormap.jet(0.375), SIMD3(0, 255, 255))
        XCTAssertEqual(Colormap.jet(0.625), SIMD3(255, 255, 0))
        XCTAssertEqual(Colormap.jet(-3), Colormap.jet(0))
    }

    /// Depth mode colors by distance from the eye: red for the nearest drawn point, blue for the farthest.
    func testDepthModeRunsRedNearToBlueFar() throws {
        let cloud = PointCloud(positions: [-0.3, 0, 1.5, 0.3, 0, 4])
        let renderer = PointRenderer(cloud: cloud)
        let camera = OrbitCamera(
            target: SIMD3(0, 0, 2), distance: 2, azimuth: 0, elevation: 0, fieldOfView: 60,
            up: .cameraFrame, width: 200, height: 100)
        let image = try renderer.render(camera, style: RenderStyle(color: .depth, pointSize: 1, background: black)).image
        let near = try XCTUnwrap(camera.project(SIMD3(-0.3, 0, 1.5)))
        let far = try XCTUnwrap(camera.project(SIMD3(0.3, 0, 4)))
        func pixel(_ p: (x: Float, y: Float, depth: Float)) -> [UInt8] {
            let i = 3 * (Int(p.y) * 200 + Int(p.x))
            return Array(image.rgb[i..<(i + 3)])
        }
        XCTAssertEqual(pixel(near), [128, 0, 0])
        XCTAssertEqual(pixel(far), [0, 0, 128])
    }
}

/// A world-frame preview looks from the first camera: its up and heading come from the pose.
final class PoseViewTests: XCTestCase {
    func testViewFromPose() {
        let identity = RenderView(cameraPose: .identity)
        XCTAssertEqual(identity.up, .cameraFrame)
        XCTAssertEqual(identity.azimuth, 0, accuracy: 1e-4)
        XCTAssertEqual(identity.elevation, 0, accuracy: 1e-4)
        // A room camera at eye height looking along +x and down 30 degrees: z up, azimuth 90 (+x is
        // the orbit's right-hand direction r for +z up), elevation 30.
        let eye = SIMD3<Double>(0.5, 1.5, 1.6)
        let pose = Pose.lookAt(eye: eye, target: eye + SIMD3(cos(Double.pi / 6), 0, -sin(Double.pi / 6)))
        let view = RenderView(cameraPose: pose)
        XCTAssertEqual(view.up, .worldFrame)
        XCTAssertEqual(view.azimuth, 90, accuracy: 1e-3)
        XCTAssertEqual(view.elevation, 30, accuracy: 1e-3)
    }
}
