import CloudCapture
import CloudCore
import XCTest

final class SyntheticSequenceTests: XCTestCase {
    func settings(_ spec: String) throws -> SyntheticSettings {
        guard case .settings(let s) = try SourceSpec(parsing: spec).arguments else {
            XCTFail("\(spec) is not synthetic")
            throw CloudError.badInput(spec)
        }
        return s
    }

    func testPathAndFramesKeys() throws {
        XCTAssertEqual(try settings("synthetic").frames, 1)
        XCTAssertNil(try settings("synthetic").path)
        XCTAssertEqual(try settings("synthetic:path=orbit").frames, SyntheticSettings.defaultPathFrames)
        XCTAssertEqual(try settings("synthetic:path=walk,frames=5").frames, 5)
        XCTAssertEqual(try settings("synthetic:frames=3").path, nil)
        let s = try settings("synthetic:path=orbit,frames=7")
        XCTAssertEqual(try settings(s.spec), s, "the name parses back")
        XCTAssertTrue(s.spec.hasSuffix(",path=orbit,frames=7"), s.spec)
        let one = try settings("synthetic:path=orbit,frames=1")
        XCTAssertEqual(try settings(one.spec), one, "\(one.spec) must not read back as the default 24 frames")
        for (bad, fragment) in [
            ("synthetic:path=circle", "path=circle is not one of orbit, walk"),
            ("synthetic:frames=0", "frames=0 must be"), ("synthetic:frames=x", "frames=x must be"),
            ("synthetic:frames=1000000", "frames=1000000 must be")
        ] {
            XCTAssertThrowsError(try SourceSpec(parsing: bad)) { XCTAssertTrue("\($0)".contains(fragment), "\(bad): \($0)") }
        }
    }

    func testSequenceDeliversItsFramesThenEndsWithMovingPosesAndFreshNoise() throws {
        let camera = try SyntheticCamera(settings: try settings("synthetic:path=orbit,frames=4,depth=32x24,color=32x24"))
        var frames: [CapturedFrame] = []
        while let f = try camera.nextFrame() { frames.append(f) }
        XCTAssertEqual(frames.count, 4)
        XCTAssertEqual(frames.map(\.timestamp), [0, 1, 2, 3].map { Double($0) / 30 })
        // Orbit poses: all at one height and one distance from the room's centre, all different.
        let centre = SIMD3<Double>(2, 1.5, frames[0].pose!.translation.z)
        let radii = frames.map { f -> Double in
            let d = f.pose!.translation - centre
            return (d * d).sum().squareRoot()
        }
        for r in radii { XCTAssertEqual(r, 0.9, accuracy: 1e-9) }
        XCTAssertEqual(Set(frames.map { "\($0.pose!.translation)" }).count, 4)
        // A still camera's frames differ only by their noise.
        let still = try SyntheticCamera(settings: try settings("synthetic:frames=2,depth=32x24,color=32x24"))
        let (a, b) = (try XCTUnwrap(still.nextFrame()), try XCTUnwrap(still.nextFrame()))
        XCTAssertEqual(a.pose, b.pose)
        XCTAssertNotEqual(a.depth.data, b.depth.data)
        XCTAssertEqual(a.color?.planes, b.color?.planes)
        XCTAssertNil(try still.nextFrame())
    }
}
