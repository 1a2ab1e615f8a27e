import CloudCapture
import CloudCore
import XCTest

/// `sensor=kinect` and `sensor=lidar` against their models (`KinectNoise`, `LiDARNoise`), measured
/// on the same frame rendered exactly.
final class SyntheticRoomNoiseTests: XCTestCase {
    func testKinectFigures() {
        // Khoshelham and Oude Elberink: random error about 4 cm and depth resolution about 7 cm at 5 m.
        XCTAssertEqual(KinectNoise.sigma(depth: 5), 0.035, accuracy: 1e-12)
        XCTAssertEqual(KinectNoise.depthStep(depth: 5), 25 / (580 * 0.075 * 8), accuracy: 1e-12)
        XCTAssertEqual(KinectNoise.depthStep(depth: 5), 0.072, accuracy: 0.001)
        XCTAssertEqual(LiDARNoise.sigma(depth: 5), 0.01, accuracy: 1e-12)
    }

    func testKinectDeliversMillimetresAtItsOwnSize() throws {
        let settings = try SyntheticSettings(parsing: "synthetic:sensor=kinect")
        XCTAssertEqual(settings.depthSize, ImageSize(width: 640, height: 480))
        XCTAssertEqual(settings.format, .mm16)
        XCTAssertEqual(
            try SyntheticSettings(parsing: "synthetic:sensor=kinect,depth=320x240").depthSize, ImageSize(width: 320, height: 240))
        // The same noise stored as millimetres and as Float32 metres.
        let mm = try renderedDepth("synthetic:sensor=kinect,seed=3,depth=160x120,color=16x12")
        let metres = try renderedDepth("synthetic:sensor=kinect,seed=3,depth=160x120,color=16x12,format=depth32")
        XCTAssertEqual(mm.validCount, metres.validCount)
        for (a, b) in zip(mm.metres, metres.metres) {
            XCTAssertEqual(a, (b * 1000).rounded() / 1000, accuracy: 1e-6)
        }
    }

    /// On the east wall (a flat wall 2.3 to 3.3 m away, across many disparity steps) the error's
    /// standard deviation is the model's 1.4 mm z^2, and every depth is one of the sensor's steps.
    func testKinectNoiseOnAWallMatchesTheModel() throws {
        let spec = "depth=640x480,format=depth32,color=64x48"
        let exactCamera = try syntheticCamera("synthetic:noise=0,\(spec)")
        let exact = try renderedDepth(exactCamera.name)
        let noisy = try renderedDepth("synthetic:sensor=kinect,seed=3,\(spec)")
        let wall = try WorldPoints(exactCamera).points.map { $0.map { truthSurface($0, exactCamera.scene.truth) == "east" } ?? false }
        var (n, sum, sumSquares, dropped, depths) = (0.0, 0.0, 0.0, 0, (min: Double.infinity, max: 0.0))
        for i in wall.indices where wall[i] {
            let (z, zn) = (Double(exact.metres[i]), Double(noisy.metres[i]))
            guard zn > 0 else {
                dropped += 1
                continue
            }
            let r = (zn - z) / KinectNoise.sigma(depth: z)
            (n, sum, sumSquares) = (n + 1, sum + r, sumSquares + r * r)
            depths = (min(depths.min, z), max(depths.max, z))
        }
        XCTAssertGreaterThan(n, 20_000)
        XCTAssertLessThan(depths.min, 2.5)
        XCTAssertGreaterThan(depths.max, 3)
        let mean = sum / n
        XCTAssertEqual(mean, 0, accuracy: 0.05)
        XCTAssertEqual((sumSquares / n - mean * mean).squareRoot(), 1, accuracy: 0.1)
        XCTAssertLessThan(Double(dropped) / (n + Double(dropped)), 0.03, "1 % random dropouts; the wall is not grazing")
        // Depth = 8 f b / k for whole k: the disparity steps.
        let steps = Set(noisy.metres.filter { $0 > 0 }.map { 8 * KinectNoise.focalLength * KinectNoise.baseline / Double($0) })
        XCTAssertTrue(steps.allSatisfy { abs($0 - $0.rounded()) < 1e-3 }, "\(steps.prefix(5))")
        XCTAssertGreaterThan(steps.count, 50)
        XCTAssertLessThan(steps.count, 300, "a 640x480 frame holds few distinct depths")
    }

    func testLiDARIsDenseSmoothedAndAsNoisyAsModelled() throws {
        let settings = try SyntheticSettings(parsing: "synthetic:sensor=lidar")
        XCTAssertEqual(settings.depthSize, ImageSize(width: 256, height: 192))
        XCTAssertEqual(settings.format, .depth16)
        let (w, h) = (256, 192)
        let exactCamera = try syntheticCamera("synthetic:noise=0,format=depth32,color=64x48")
        let exact = try renderedDepth(exactCamera.name).metres.map(Double.init)
        let noisy = try renderedDepth("synthetic:sensor=lidar,seed=4,format=depth32,color=64x48")
        XCTAssertEqual(noisy.validCount, w * h, "ARKit's depth has no holes")
        let names = try WorldPoints(exactCamera).points.map { $0.flatMap { truthSurface($0, exactCamera.scene.truth) } }
        // [1 2 1] x [1 2 1] / 16 over the 3x3 neighbourhood.
        func smoothedExact(_ u: Int, _ v: Int) -> (mean: Double, spread: Double, plane: String?) {
            var (sum, lo, hi, plane) = (0.0, Double.infinity, 0.0, names[v * w + u])
            for dv in -1...1 {
                for du in -1...1 {
                    let z = exact[(v + dv) * w + u + du]
                    sum += Double((2 - abs(du)) * (2 - abs(dv))) * z
                    (lo, hi) = (min(lo, z), max(hi, z))
                    if names[(v + dv) * w + u + du] != plane { plane = nil }
                }
            }
            return (sum / 16, hi - lo, plane)
        }
        var residual = [Double?](repeating: nil, count: w * h)
        var flying = 0
        for v in 1..<(h - 1) {
            for u in 1..<(w - 1) {
                let s = smoothedExact(u, v)
                let zn = Double(noisy.metres[v * w + u])
                if s.plane != nil {
                    residual[v * w + u] = (zn - s.mean) / LiDARNoise.sigma(depth: exact[v * w + u])
                } else if s.spread > 0.3 {
                    // A depth edge: the delivered depth is the neighbourhood's mean, between the surfaces.
                    XCTAssertEqual(zn, s.mean, accuracy: 0.05, "(\(u), \(v))")
                    let z = exact[v * w + u]
                    if zn > z - s.spread + 0.05 && zn < z + s.spread - 0.05 && abs(zn - z) > 0.05 { flying += 1 }
                }
            }
        }
        XCTAssertGreaterThan(flying, 50, "flying pixels at the furniture's outlines")
        let r = residual.compactMap { $0 }
        XCTAssertGreaterThan(r.count, 20_000)
        let mean = r.reduce(0, +) / Double(r.count)
        let sd = (r.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(r.count)).squareRoot()
        XCTAssertEqual(mean, 0, accuracy: 0.05)
        XCTAssertEqual(sd, 1, accuracy: 0.1)
        // Neighbours share most of their raw pixels: correlation (2 + 2) / (1 + 4 + 1) = 2/3.
        var (pairs, product) = (0.0, 0.0)
        for i in residual.indices where i % w < w - 1 {
            guard let a = residual[i], let b = residual[i + 1] else { continue }
            (pairs, product) = (pairs + 1, product + (a - mean) * (b - mean))
        }
        XCTAssertEqual(product / pairs / (sd * sd), 2.0 / 3, accuracy: 0.07)
    }
}
