import CloudCore
import CloudFiles
import Foundation
import SharedTestData
import XCTest

/// Real files from PCL's test data (../shared/data). The expected counts come from the files'
/// own headers; positions, colors and sums were taken with numpy / pypcd4 / plyfile, not with
/// our reader.
final class FixtureTests: XCTestCase {
    struct Expected {
        var count: Int
        var grid: PointCloud.Grid?
        var fields: [String]
        var format: CloudFileFormat
        var hasColors: Bool
        var hasNormals: Bool
        var firstValid: (index: Int, point: SIMD3<Float>, color: SIMD3<UInt8>?)
        /// Sum of r, g, b over all points.
        var colorSums: SIMD3<Int>?
        var finiteCount: Int
    }

    static let clouds: [String: Expected] = [
        // PCD v.5, ascii, xyz.
        "bunny.pcd": Expected(
            count: 397, grid: nil, fields: ["x", "y", "z"], format: .pcd(.ascii),
            hasColors: false, hasNormals: false,
            firstValid: (0, SIMD3(0.0054216, 0.11349, 0.040749), nil), colorSums: nil, finiteCount: 397),
        // WIDTH 1 HEIGHT 1000: organized as PCL defines it (more than one row).
        "colored_cloud.pcd": Expected(
            count: 1000, grid: .init(width: 1, height: 1000),
            fields: ["x", "y", "z", "rgb", "normal_x", "normal_y", "normal_z", "curvature"],
            format: .pcd(.binary), hasColors: true, hasNormals: true,
            firstValid: (0, SIMD3(-0.8550515174865723, -0.6315085887908936, 1.4670000076293945), SIMD3(108, 109, 105)),
            colorSums: SIMD3(140_634, 139_284, 136_778), finiteCount: 1000),
        "milk_color.pcd": Expected(
            count: 13704, grid: nil, fields: ["x", "y", "z", "rgba"], format: .pcd(.compressed),
            hasColors: true, hasNormals: false,
            firstValid: (0, SIMD3(-0.13160760700702667, -0.2095429003238678, 0.7720000147819519), SIMD3(103, 90, 85)),
            colorSums: SIMD3(1_253_588, 1_270_390, 1_299_452), finiteCount: 13704),
        // Binary little endian xyz with a face element (ignored).
        "cube.ply": Expected(
            count: 24, grid: nil, fields: ["x", "y", "z"], format: .ply(.binary),
            hasColors: false, hasNormals: false,
            firstValid: (0, SIMD3(-1, -1, -1), nil), colorSums: nil, finiteCount: 24)
    ]

    func testEveryPCLCloudReads() throws {
        let folder = try sharedDataDirectory().appendingPathComponent("pcl-clouds")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        XCTAssertEqual(Set(names), Set(Self.clouds.keys), "every file in pcl-clouds needs its expectations here")
        for name in names {
            guard let expected = Self.clouds[name] else { continue }
            let path = folder.appendingPathComponent(name).path
            let header = try CloudReader.header(path)
            XCTAssertEqual(header.pointCount, expected.count, name)
            XCTAssertEqual(header.format, expected.format, name)
            let file = try CloudReader.read(path)
            try check(file, expected, name)
        }
    }

    func testGrabberFramesReadOrganizedWithColors() throws {
        let folder = try sharedDataDirectory().appendingPathComponent("pcl-grabber")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".pcd") }.sorted()
        XCTAssertEqual(names.count, 2)
        // From pypcd4: finite points, the first finite point (row 15, column 16), color sums, and
        // the principal point's pixel (320, 240), which back-projects to x = y = 0.
        let frames: [String: (Expected, centerZ: Float, centerColor: SIMD3<UInt8>)] = [
            "frame_20121214T142255.814212.pcd": (
                Expected(
                    count: 307_200, grid: .init(width: 640, height: 480), fields: ["x", "y", "z", "rgba"],
                    format: .pcd(.compressed), hasColors: true, hasNormals: false,
                    firstValid: (9616, SIMD3(-0.9102628231048584, -0.673714280128479, 1.5720000267028809), SIMD3(80, 82, 88)),
                    colorSums: SIMD3(21_149_585, 21_451_249, 19_831_951), finiteCount: 271_575),
                0.8540000319480896, SIMD3(122, 120, 114)
            ),
            "frame_20121214T142256.068683.pcd": (
                Expected(
                    count: 307_200, grid: .init(width: 640, height: 480), fields: ["x", "y", "z", "rgba"],
                    format: .pcd(.compressed), hasColors: true, hasNormals: false,
                    firstValid: (9616, SIMD3(-0.9143162369728088, -0.676714301109314, 1.5790001153945923), SIMD3(84, 90, 95)),
                    colorSums: SIMD3(20_980_304, 21_360_795, 19_857_877), finiteCount: 271_395),
                0.8600000143051147, SIMD3(121, 119, 113)
            )
        ]
        XCTAssertEqual(Set(names), Set(frames.keys))
        for name in names {
            guard let (expected, centerZ, centerColor) = frames[name] else { continue }
            let file = try CloudReader.read(folder.appendingPathComponent(name).path)
            try check(file, expected, name)
            let center = 240 * 640 + 320
            XCTAssertEqual(file.cloud.point(center), SIMD3(0, 0, centerZ), name)
            XCTAssertEqual(file.cloud.color(center), centerColor, name)
        }
    }

    private func check(_ file: CloudFile, _ expected: Expected, _ name: String) throws {
        let cloud = file.cloud
        XCTAssertEqual(cloud.count, expected.count, name)
        XCTAssertEqual(cloud.organized, expected.grid, name)
        XCTAssertEqual(file.fields, expected.fields, name)
        XCTAssertEqual(cloud.colors != nil, expected.hasColors, name)
        XCTAssertEqual(cloud.normals != nil, expected.hasNormals, name)
        guard cloud.count == expected.count else { return }

        var finite = 0
        var firstFinite: Int?
        cloud.positions.withUnsafeBufferPointer { p in
            for i in 0..<cloud.count where p[3 * i].isFinite && p[3 * i + 1].isFinite && p[3 * i + 2].isFinite {
                finite += 1
                if firstFinite == nil { firstFinite = i }
            }
        }
        XCTAssertEqual(finite, expected.finiteCount, name)
        XCTAssertEqual(firstFinite, expected.firstValid.index, name)
        XCTAssertEqual(cloud.point(expected.firstValid.index), expected.firstValid.point, name)
        XCTAssertEqual(cloud.color(expected.firstValid.index), expected.firstValid.color, name)
        if let sums = expected.colorSums, let colors = cloud.colors {
            var total = SIMD3<Int>(repeating: 0)
            for i in 0..<cloud.count {
                total &+= SIMD3(Int(colors[3 * i]), Int(colors[3 * i + 1]), Int(colors[3 * i + 2]))
            }
            XCTAssertEqual(total, sums, name)
        }
    }

    /// colored_cloud.pcd's first normal, from pypcd4.
    func testNormalsOfColoredCloud() throws {
        let path = try sharedDataDirectory().appendingPathComponent("pcl-clouds/colored_cloud.pcd").path
        let normals = try XCTUnwrap(CloudReader.read(path).cloud.normals)
        XCTAssertEqual(Array(normals[0..<3]), [0.6966168880462646, 0.6920541524887085, 0.1891719102859497])
    }
}
