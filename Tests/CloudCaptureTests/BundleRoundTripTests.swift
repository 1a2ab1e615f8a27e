import CloudCapture
import CloudCore
import Foundation
import XCTest

/// Capture bundles written from the simulated camera and read back: the same bytes, the same
/// cloud, and lens tables that straighten walls.
final class BundleRoundTripTests: XCTestCase {
    func testSimulatedFrameRoundTripsByteForByte() throws {
        let dir = try temporaryDirectory(self).appendingPathComponent("scan")
        let camera = try syntheticCamera("synthetic:seed=5,depth=64x48,color=96x72,reference=400x300,distortion=1")
        let frame = camera.renderFrame()
        try writeBundle([frame], to: dir)

        let files = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("frames").path).sorted()
        XCTAssertEqual(files, ["000000.cbcr", "000000.depth", "000000.y"])
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir.deletingLastPathComponent().path), ["scan"],
            "no staging directory left beside the bundle")

        let read = try readBundle(dir)
        XCTAssertEqual(read.count, 1)
        let back = try XCTUnwrap(read.first)
        XCTAssertEqual(back.depth.data, frame.depth.data)
        XCTAssertEqual(back.depth.width, 64)
        XCTAssertEqual(back.depth.bytesPerRow, 128)
        XCTAssertEqual(back.depth.encoding, .depthFloat16)
        XCTAssertEqual(back.depth.accuracy, .absolute)
        XCTAssertFalse(back.depth.isFiltered)
        XCTAssertEqual(back.color?.planes, frame.color?.planes)
        XCTAssertEqual(back.color?.layout, .yuv420BiPlanar(YUVFormat(range: .full, matrix: .bt709)))
        XCTAssertEqual(back.intrinsics, frame.intrinsics)
        XCTAssertEqual(back.intrinsics.referenceWidth, 400)
        XCTAssertEqual(back.pose, camera.pose)
        XCTAssertEqual(back.timestamp, frame.timestamp)
        XCTAssertNotNil(frame.distortion)
        XCTAssertEqual(back.distortion, frame.distortion)
        XCTAssertNil(back.depthToColor)

        let source = try BundleSource(directory: dir.path)
        XCTAssertEqual(source.name, "bundle:\(dir.path)")
        XCTAssertTrue(source.knowsPose)
        XCTAssertTrue(source.isMetric)
        XCTAssertEqual(source.warnings, [])
        XCTAssertEqual(source.frameCount, 1)
    }

    /// Must-show: the phone-shaped capture (Float16 depth 256x192, YUV color 1920x1440,
    /// intrinsics at 4032x3024) through a bundle gives the cloud of the direct capture.
    func testPhoneCaptureThroughABundleGivesTheDirectCloud() throws {
        let dir = try temporaryDirectory(self).appendingPathComponent("phone")
        let spec = "synthetic:reference=4032x3024"
        let source = try SourceSpec(parsing: spec).open()
        let direct = try XCTUnwrap(try source.nextFrame())
        XCTAssertEqual(direct.depth.encoding, .depthFloat16)
        XCTAssertEqual(direct.depth.width, 256)
        XCTAssertEqual(direct.color?.width, 1920)
        XCTAssertEqual(direct.intrinsics.referenceWidth, 4032)
        XCTAssertEqual(direct.intrinsics.referenceHeight, 3024)

        let writer = try BundleWriter(directory: dir.path)
        try writer.append(frame: direct)
        try writer.finish()
        let viaBundle = try XCTUnwrap(try readBundle(dir).first)

        let a = try BackProjection().run(RGBDFrame(decoding: direct, origin: spec))
        let b = try BackProjection().run(RGBDFrame(decoding: viaBundle, origin: dir.path))
        XCTAssertEqual(a.counts, b.counts)
        XCTAssertGreaterThan(a.counts.points, 256 * 192 * 9 / 10)
        XCTAssertEqual(a.cloud.colors, b.cloud.colors)
        var worst: Float = 0
        for i in 0..<a.cloud.count {
            let (p, q) = (a.cloud.point(i), b.cloud.point(i))
            // Float16 holds depth to 2^-11 of its value; nothing in a bundle may lose more.
            let tolerance = p.z * 0x1p-11
            let d = max(abs(p.x - q.x), abs(p.y - q.y), abs(p.z - q.z))
            worst = max(worst, d)
            XCTAssertLessThanOrEqual(d, tolerance, "point \(i)")
        }
        XCTAssertEqual(worst, 0, "the bundle keeps the Float16 bytes, so the clouds are identical")
    }

    /// Must-show: through a bundle with lens tables, the east wall back-projects flat (plane-fit
    /// residual below 2 mm at noise=0); ignoring the tables bends it well beyond that.
    func testDistortionTablesStraightenWalls() throws {
        let dir = try temporaryDirectory(self).appendingPathComponent("lens")
        let camera = try syntheticCamera("synthetic:noise=0,distortion=1,reference=4032x3024,color=320x240")
        try writeBundle([camera.renderFrame()], to: dir)
        let frame = try XCTUnwrap(try readBundle(dir).first)
        let lens = try XCTUnwrap(frame.distortion)
        let pose = try XCTUnwrap(frame.pose)

        let corrected = try cameraPoints(frame, distortion: lens)
        let ignored = try cameraPoints(frame, distortion: nil)
        // The east wall's pixels, found from the corrected points against the room's geometry.
        let wall = corrected.indices.filter { i in
            guard let p = corrected[i] else { return false }
            return camera.scene.surface(atWorldPoint: pose.apply(p), tolerance: 0.005) == .wall(.east)
        }
        XCTAssertGreaterThan(wall.count, 256 * 192 / 10, "the east wall fills a good part of the view")
        let with = planeFit(wall.map { corrected[$0]! })
        let without = planeFit(wall.map { ignored[$0]! })
        print(
            String(
                format: "east wall, %d pixels: with the tables RMS %.2f mm, max %.2f mm; without RMS %.2f mm, max %.2f mm",
                wall.count, with.rms * 1000, with.max * 1000, without.rms * 1000, without.max * 1000))
        XCTAssertLessThan(with.max, 0.002)
        XCTAssertGreaterThan(without.max, 0.006)
        XCTAssertGreaterThan(without.rms, 0.002)
    }

    /// Kinect-style millimetres become depthFloat32 metres: exactly the floats the integers decode to.
    func testIntegerDepthIsStoredAsFloat32Metres() throws {
        let dir = try temporaryDirectory(self).appendingPathComponent("mm")
        let frame = try syntheticCamera("synthetic:format=mm16,depth=40x30,color=8x6").renderFrame()
        try writeBundle([frame], to: dir)
        let back = try XCTUnwrap(try readBundle(dir).first)
        XCTAssertEqual(back.depth.encoding, .depthFloat32)
        XCTAssertEqual(try RGBDFrame(decoding: back, origin: "b").depth, try RGBDFrame(decoding: frame, origin: "f").depth)
    }

    /// Padded depth rows are packed; RGB color is stored as BGRA and decodes to the same colors;
    /// accuracy, filtering, extrinsics (millimetres on disk) and poses come back.
    func testEverythingAFrameCarriesComesBack() throws {
        let dir = try temporaryDirectory(self).appendingPathComponent("all")
        let (w, h) = (3, 2)
        var depthBytes = [UInt8](repeating: 0xEE, count: 16 * h)  // rows of 16 bytes, 12 used
        for v in 0..<h {
            for u in 0..<w {
                let z = Float(1 + u + 10 * v)
                withUnsafeBytes(of: z.bitPattern.littleEndian) {
                    depthBytes.replaceSubrange((16 * v + 4 * u)..<(16 * v + 4 * u + 4), with: $0)
                }
            }
        }
        let rgb: [UInt8] = (0..<(4 * 4 * 3)).map { UInt8($0 * 5) }
        let k = CameraIntrinsics(fx: 500, fy: 501, cx: 320.25, cy: 239.75, referenceWidth: 640, referenceHeight: 480)
        let toColor = Pose(rows: (SIMD3(0, -1, 0), SIMD3(1, 0, 0), SIMD3(0, 0, 1)), translation: SIMD3(0.025, -0.001, 0.0005))
        let pose = Pose.lookAt(eye: SIMD3(1, 2, 1.5), target: SIMD3(3, 3, 0))
        let frames = (0..<2).map { i in
            CapturedFrame(
                depth: .init(
                    width: w, height: h, encoding: .depthFloat32, data: depthBytes, bytesPerRow: 16,
                    accuracy: i == 0 ? .absolute : .relative, isFiltered: i == 1),
                color: .init(width: 4, height: 4, layout: .rgb8, planes: [rgb]),
                intrinsics: k, pose: pose, timestamp: 12.5 + Double(i) / 30, depthToColor: toColor)
        }
        try writeBundle(frames, to: dir)
        let source = try BundleSource(directory: dir.path)
        XCTAssertFalse(source.isMetric)
        XCTAssertTrue(source.knowsPose)
        XCTAssertEqual(source.warnings.count, 2, "\(source.warnings)")
        XCTAssertTrue(source.warnings[0].message.contains("depth accuracy is relative in 1 of 2 frames"), source.warnings[0].message)
        XCTAssertTrue(source.warnings[0].message.contains("not metric"), source.warnings[0].message)
        XCTAssertTrue(source.warnings[1].message.contains("extrinsics are not the identity (baseline 25.0 mm)"), source.warnings[1].message)
        for (i, original) in frames.enumerated() {
            let back = try XCTUnwrap(try source.nextFrame())
            XCTAssertEqual(back.depth.bytesPerRow, 12)
            XCTAssertEqual(try RGBDFrame(decoding: back, origin: "b").depth, try RGBDFrame(decoding: original, origin: "o").depth)
            XCTAssertEqual(back.depth.accuracy, original.depth.accuracy)
            XCTAssertEqual(back.depth.isFiltered, i == 1)
            XCTAssertEqual(back.color?.layout, .bgra8)
            XCTAssertEqual(try ColorImage(decoding: XCTUnwrap(back.color), origin: "b").rgb, rgb)
            XCTAssertEqual(back.timestamp, original.timestamp)
            XCTAssertEqual(back.intrinsics, k)
            XCTAssertEqual(back.pose, pose)
            let e = try XCTUnwrap(back.depthToColor)
            XCTAssertEqual(e.rotation.0, toColor.rotation.0)
            XCTAssertEqual(e.rotation.1, toColor.rotation.1)
            XCTAssertEqual(e.translation.x, 0.025, accuracy: 1e-15)
            XCTAssertEqual(e.translation.z, 0.0005, accuracy: 1e-15)
        }
        XCTAssertNil(try source.nextFrame())
    }

    /// The manifest speaks AVFoundation: the intrinsic matrix as columns [[fx,0,0],[0,fy,0],[ox,oy,1]]
    /// with its reference dimensions, the extrinsics as 4 columns [R | t] with t in millimetres.
    func testManifestFollowsAVFoundationConventions() throws {
        let dir = try temporaryDirectory(self).appendingPathComponent("conventions")
        var frame = try syntheticCamera("synthetic:depth=8x6,color=16x12,reference=4032x3024,distortion=1").renderFrame()
        frame.depthToColor = Pose(rows: (SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)), translation: SIMD3(0.01, 0, 0))
        try writeBundle([frame], to: dir)
        let data = try Data(contentsOf: dir.appendingPathComponent("manifest.json"))
        let root = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertEqual(root["format"] as? String, "cloudgen-capture-bundle")
        XCTAssertEqual(root["version"] as? Int, 1)
        let f = try XCTUnwrap((root["frames"] as? [[String: Any]])?.first)
        let depth = try XCTUnwrap(f["depth"] as? [String: Any])
        XCTAssertEqual(depth["file"] as? String, "frames/000000.depth")
        XCTAssertEqual(depth["format"] as? String, "depthFloat16")
        XCTAssertEqual(depth["accuracy"] as? String, "absolute")
        XCTAssertEqual(depth["filtered"] as? Bool, false)
        let color = try XCTUnwrap(f["color"] as? [String: Any])
        XCTAssertEqual(color["format"] as? String, "yuv420f")
        XCTAssertEqual(color["yCbCrMatrix"] as? String, "bt709")
        XCTAssertEqual(color["files"] as? [String], ["frames/000000.y", "frames/000000.cbcr"])
        let cal = try XCTUnwrap(f["calibration"] as? [String: Any])
        let k = frame.intrinsics
        XCTAssertEqual(cal["intrinsicMatrix"] as? [[Double]], [[k.fx, 0, 0], [0, k.fy, 0], [k.cx, k.cy, 1]])
        XCTAssertEqual(cal["referenceDimensions"] as? [String: Int], ["width": 4032, "height": 3024])
        XCTAssertEqual((cal["lensDistortionLookupTable"] as? [Double])?.count, 42)
        XCTAssertEqual((cal["inverseLensDistortionLookupTable"] as? [Double])?.count, 42)
        XCTAssertEqual(cal["extrinsicMatrix"] as? [[Double]], [[1, 0, 0], [0, 1, 0], [0, 0, 1], [10, 0, 0]])
        let world = try XCTUnwrap(f["cameraToWorld"] as? [[Double]])
        XCTAssertEqual(world.map(\.count), [4, 4, 4, 4])
        XCTAssertEqual(world[3], [frame.pose!.translation.x, frame.pose!.translation.y, frame.pose!.translation.z, 1])
    }

    func testAnUnfinishedBundleLeavesNothingBehind() throws {
        let parent = try temporaryDirectory(self)
        let dir = parent.appendingPathComponent("never")
        do {
            let writer = try BundleWriter(directory: dir.path)
            try writer.append(frame: try syntheticCamera("synthetic:depth=8x6,color=8x6").renderFrame())
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent.path).count, 1, "the staging directory")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.path))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent.path), [])
    }

    func testBundlesAreWrittenOnlyWhereNothingIs() throws {
        let parent = try temporaryDirectory(self)
        let frame = try syntheticCamera("synthetic:depth=8x6,color=8x6").renderFrame()
        let empty = parent.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: false)
        try writeBundle([frame], to: empty)
        XCTAssertEqual(try readBundle(empty).count, 1)

        XCTAssertThrowsError(try BundleWriter(directory: empty.path)) { error in
            XCTAssertEqual((error as? CloudError)?.kind, .badInput)
            XCTAssertTrue("\(error)".contains("\(empty.path): already exists and is not an empty folder"), "\(error)")
        }
        let file = parent.appendingPathComponent("file")
        try Data([1]).write(to: file)
        XCTAssertThrowsError(try BundleWriter(directory: file.path))
        XCTAssertThrowsError(try BundleWriter(directory: parent.appendingPathComponent("no/such/parent").path)) { error in
            XCTAssertEqual((error as? CloudError)?.kind, .deviceOrIO)
        }
        XCTAssertThrowsError(try BundleWriter(directory: parent.appendingPathComponent("none").path).finish()) { error in
            XCTAssertTrue("\(error)".contains("no frames"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: parent.appendingPathComponent("none").path))
    }
}
/// A fresh directory under the system's temporary directory, removed when the test ends.
func temporaryDirectory(_ test: XCTestCase) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("cloudgen-bundle-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}

/// Writes `frames` as a bundle at `directory`.
func writeBundle(_ frames: [CapturedFrame], to directory: URL) throws {
    let writer = try BundleWriter(directory: directory.path)
    for frame in frames { try writer.append(frame: frame) }
    try writer.finish()
}

/// Every frame a bundle delivers.
func readBundle(_ directory: URL) throws -> [CapturedFrame] {
    let source = try SourceSpec(parsing: "bundle:\(directory.path)").open()
    var frames: [CapturedFrame] = []
    while let frame = try source.nextFrame() { frames.append(frame) }
    return frames
}

/// Rewrites frame `index` of a bundle's manifest.json, as a JSON object.
func editManifest(_ directory: URL, frame index: Int = 0, _ edit: (inout [String: Any]) -> Void) throws {
    let url = directory.appendingPathComponent("manifest.json")
    var root = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    var frames = try XCTUnwrap(root["frames"] as? [[String: Any]])
    edit(&frames[index])
    root["frames"] = frames
    try JSONSerialization.data(withJSONObject: root).write(to: url)
}

/// Sets (or with nil removes) the value at `path` inside nested JSON objects.
func setJSON(_ object: inout [String: Any], _ path: [String], _ value: Any?) {
    guard let key = path.first else { return }
    if path.count == 1 {
        object[key] = value
    } else {
        var inner = object[key] as? [String: Any] ?? [:]
        setJSON(&inner, Array(path.dropFirst()), value)
        object[key] = inner
    }
}

/// The camera-frame point of every depth pixel (nil without depth), through the frame's
/// intrinsics and, with `distortion`, the lens tables it carries.
func cameraPoints(_ frame: CapturedFrame, distortion: LensDistortion?) throws -> [SIMD3<Double>?] {
    let depth = try RGBDFrame(decoding: frame, origin: "test").depth
    let rays = try RayTable(intrinsics: frame.intrinsics, distortion: distortion, width: depth.width, height: depth.height, origin: "test")
    return depth.metres.indices.map { i in
        let z = Double(depth.metres[i])
        return z > 0 ? SIMD3(Double(rays.factors[2 * i]) * z, Double(rays.factors[2 * i + 1]) * z, z) : nil
    }
}

/// The least-squares plane through `points` (normal = the covariance's smallest eigenvector, by
/// Jacobi rotations) and the points' distances from it: RMS and largest.
func planeFit(_ points: [SIMD3<Double>]) -> (rms: Double, max: Double) {
    let mean = points.reduce(SIMD3<Double>.zero, +) / Double(points.count)
    var a = [[Double]](repeating: [0, 0, 0], count: 3)
    for p in points {
        let d = p - mean
        for i in 0..<3 { for j in 0..<3 { a[i][j] += d[i] * d[j] } }
    }
    var v: [[Double]] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    for _ in 0..<60 {
        var (p, q) = (0, 1)
        for (i, j) in [(0, 2), (1, 2)] where abs(a[i][j]) > abs(a[p][q]) { (p, q) = (i, j) }
        guard abs(a[p][q]) > 1e-300 else { break }
        let theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
        let t = (theta >= 0 ? 1.0 : -1.0) / (abs(theta) + (theta * theta + 1).squareRoot())
        let c = 1 / (t * t + 1).squareRoot()
        let s = t * c
        for k in 0..<3 {
            (a[k][p], a[k][q]) = (c * a[k][p] - s * a[k][q], s * a[k][p] + c * a[k][q])
            (v[k][p], v[k][q]) = (c * v[k][p] - s * v[k][q], s * v[k][p] + c * v[k][q])
        }
        for k in 0..<3 { (a[p][k], a[q][k]) = (c * a[p][k] - s * a[q][k], s * a[p][k] + c * a[q][k]) }
    }
    let smallest = (0..<3).min { a[$0][$0] < a[$1][$1] }!
    let normal = SIMD3(v[0][smallest], v[1][smallest], v[2][smallest])
    let distances = points.map { abs((($0 - mean) * normal).sum()) }
    let rms = (distances.reduce(0) { $0 + $1 * $1 } / Double(points.count)).squareRoot()
    return (rms, distances.max() ?? 0)
}
