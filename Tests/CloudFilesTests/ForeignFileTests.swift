import CloudCore
import CloudFiles
import Foundation
import SharedTestData
import XCTest

/// Files as other tools write them: Open3D's double-precision PLY, PLY colors with alpha or as
/// floats, PCL's default PLY with `element camera`, PCD with float64 coordinates.
final class ForeignFileTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = try makeScratchFolder()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    private func bytes<T>(of value: T) -> [UInt8] {
        withUnsafeBytes(of: value) { Array($0) }
    }

    /// Open3D writes x y z and nx ny nz as double, colors as uchar red green blue.
    func testOpen3DStyleDoublePLY() throws {
        let points: [(SIMD3<Double>, SIMD3<Double>, SIMD3<UInt8>)] = [
            (SIMD3(0.125, -2.0000001, 3.3), SIMD3(0, 0, 1), SIMD3(255, 0, 7)),
            (SIMD3(-1e-3, 4.5, 100.25), SIMD3(0.6, 0.8, 0), SIMD3(1, 2, 3))
        ]
        var data = Array(
            """
            ply
            format binary_little_endian 1.0
            comment Created by Open3D
            element vertex 2
            property double x
            property double y
            property double z
            property double nx
            property double ny
            property double nz
            property uchar red
            property uchar green
            property uchar blue
            end_header

            """.utf8)
        for (p, n, c) in points {
            for v in [p.x, p.y, p.z, n.x, n.y, n.z] { data += bytes(of: v.bitPattern.littleEndian) }
            data += [c.x, c.y, c.z]
        }
        let read = try CloudReader.read(file("open3d.ply", data))
        XCTAssertEqual(read.fields, ["x", "y", "z", "nx", "ny", "nz", "red", "green", "blue"])
        XCTAssertEqual(read.cloud.count, 2)
        for (i, (p, n, c)) in points.enumerated() {
            XCTAssertEqual(read.cloud.point(i), SIMD3<Float>(Float(p.x), Float(p.y), Float(p.z)))
            XCTAssertEqual(read.cloud.color(i), c)
            XCTAssertEqual(read.cloud.normals.map { Array($0[3 * i..<3 * i + 3]) }, [Float(n.x), Float(n.y), Float(n.z)])
        }
    }

    /// uchar red green blue alpha: the colors are read, alpha is named as ignored.
    func testPLYColorsWithAlpha() throws {
        let path = try file(
            "alpha.ply",
            Array(
                """
                ply
                format ascii 1.0
                element vertex 2
                property float x
                property float y
                property float z
                property uchar red
                property uchar green
                property uchar blue
                property uchar alpha
                end_header
                1 2 3 10 20 30 128
                4 5 6 200 100 50 255

                """.utf8))
        let read = try CloudReader.read(path)
        XCTAssertEqual(read.fields, ["x", "y", "z", "red", "green", "blue", "alpha"])
        XCTAssertEqual(read.ignoredFields, ["alpha"])
        XCTAssertEqual(read.cloud.colors, [10, 20, 30, 200, 100, 50])
        XCTAssertEqual(read.cloud.positions, [1, 2, 3, 4, 5, 6])
    }

    /// Float colors are 0...1 intensities; PCL keeps them as separate fields.
    func testPLYFloatColors() throws {
        let path = try file(
            "floatcolor.ply",
            Array(
                """
                ply
                format ascii 1.0
                element vertex 1
                property float x
                property float y
                property float z
                property float red
                property float green
                property float blue
                end_header
                1 2 3 1.0 0.5 0

                """.utf8))
        let read = try CloudReader.read(path)
        XCTAssertEqual(read.fields, ["x", "y", "z", "red", "green", "blue"])
        XCTAssertEqual(read.cloud.colors, [255, 128, 0])
    }

    /// pcl::io::savePLYFile's default: an `element camera` whose viewport is the cloud's grid.
    func testPCLDefaultPLYWithCamera() throws {
        let path = try file(
            "camera.ply",
            Array(
                """
                ply
                format ascii 1.0
                comment PCL generated
                element vertex 2
                property float x
                property float y
                property float z
                element camera 1
                property float view_px
                property float view_py
                property float view_pz
                property float x_axisx
                property float x_axisy
                property float x_axisz
                property float y_axisx
                property float y_axisy
                property float y_axisz
                property float z_axisx
                property float z_axisy
                property float z_axisz
                property float focal
                property float scalex
                property float scaley
                property float centerx
                property float centery
                property int viewportx
                property int viewporty
                property float k1
                property float k2
                end_header
                1 2 3
                4 5 6
                0 0 0 1 0 0 0 1 0 0 0 1 0 0 0 0 0 2 1 0 0

                """.utf8))
        let read = try CloudReader.read(path)
        XCTAssertEqual(read.cloud.positions, [1, 2, 3, 4, 5, 6])
        XCTAssertNil(read.cloud.organized)
    }

    /// A camera viewport that disagrees with the vertex count is refused, not trusted.
    func testPLYCameraViewportDisagreeingWithData() throws {
        let path = try file(
            "badcamera.ply",
            Array(
                """
                ply
                format ascii 1.0
                element vertex 2
                property float x
                property float y
                property float z
                element camera 1
                property int viewportx
                property int viewporty
                end_header
                1 2 3
                4 5 6
                1000 1000

                """.utf8))
        assertCloudError(.badInput, naming: "badcamera.ply") { try CloudReader.read(path) }
    }

    /// float64 coordinates in PCD, plus fields we ignore.
    func testPCDWithDoublesAndExtraFields() throws {
        let path = try file(
            "double.pcd",
            Array(
                """
                # .PCD v0.7 - Point Cloud Data file format
                VERSION 0.7
                FIELDS x y z intensity rgb
                SIZE 8 8 8 4 4
                TYPE F F F F U
                COUNT 1 1 1 1 1
                WIDTH 2
                HEIGHT 1
                VIEWPOINT 0 0 0 1 0 0 0
                POINTS 2
                DATA ascii
                0.1 0.2 0.3 7 16744448
                1e3 -2 nan 8 255

                """.utf8))
        let read = try CloudReader.read(path)
        XCTAssertEqual(read.fields, ["x", "y", "z", "intensity", "rgb"])
        XCTAssertEqual(Array(read.cloud.positions[0..<5]), [Float(0.1), Float(0.2), Float(0.3), 1000, -2])
        XCTAssertTrue(read.cloud.positions[5].isNaN)
        XCTAssertEqual(read.cloud.colors, [255, 128, 0, 0, 0, 255])
    }
}
