import CloudCore
import CloudFiles
import Foundation
import SharedTestData
import XCTest

/// Every writer/reader pair: 5 formats x colors or not x normals or not x organized (with NaN
/// pixels) or not.
///
/// Precision: binary PLY, binary and binary_compressed PCD store the float bits, so positions and
/// normals come back bit for bit. PCD ascii is written with 9 significant digits (we pass 9; PCL's
/// default of 8 cannot tell every pair of neighbouring floats apart), also bit for bit. PCL's PLY
/// ascii writer ignores the precision it is given and prints 6 significant digits (it formats
/// each line in a fresh std::ostringstream), so there values agree to within half a unit in the
/// 6th digit: |a - b| <= 5e-6 |a|. Colors are bytes and always exact.
final class RoundTripTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = try makeScratchFolder()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    func testPLYBinary() throws { try roundTrips(.ply(.binary)) }
    func testPLYAscii() throws { try roundTrips(.ply(.ascii)) }
    func testPCDAscii() throws { try roundTrips(.pcd(.ascii)) }
    func testPCDBinary() throws { try roundTrips(.pcd(.binary)) }
    func testPCDCompressed() throws { try roundTrips(.pcd(.compressed)) }

    private func roundTrips(_ format: CloudFileFormat) throws {
        for organized in [false, true] {
            for colors in [false, true] {
                for normals in [false, true] {
                    let label = "\(format) colors=\(colors) normals=\(normals) organized=\(organized)"
                    let cloud = syntheticCloud(colors: colors, normals: normals, organized: organized, curvature: normals)
                    let ext = { if case .ply = format { return "ply" } else { return "pcd" } }()
                    let path = folder.appendingPathComponent("c-\(colors)-\(normals)-\(organized).\(ext)").path
                    try CloudWriter.write(cloud, to: path, format: format)
                    let read = try CloudReader.read(path)
                    XCTAssertEqual(read.header.format, format, label)
                    try check(read, against: cloud, format: format, label)
                    try checkFileText(path, format: format, cloud: cloud, label)
                }
            }
        }
    }

    private func check(_ read: CloudFile, against cloud: PointCloud, format: CloudFileFormat, _ label: String) throws {
        let got = read.cloud
        XCTAssertEqual(got.count, cloud.count, label)
        XCTAssertEqual(got.organized, cloud.organized, label)
        XCTAssertEqual(got.colors != nil, cloud.colors != nil, label)
        XCTAssertEqual(got.normals != nil, cloud.normals != nil, label)
        // The file's own field names: PLY's properties, PCD's FIELDS.
        var expectedFields = ["x", "y", "z"]
        let isPLY: Bool
        if case .ply = format { isPLY = true } else { isPLY = false }
        if cloud.colors != nil { expectedFields += isPLY ? ["red", "green", "blue"] : ["rgb"] }
        if cloud.normals != nil {
            expectedFields += isPLY ? ["nx", "ny", "nz", "curvature"] : ["normal_x", "normal_y", "normal_z", "curvature"]
        }
        XCTAssertEqual(read.fields, expectedFields, label)
        guard got.count == cloud.count else { return }

        // Every encoding keeps every bit, empty cells included (NaN equals NaN here).
        for k in 0..<cloud.positions.count {
            XCTAssertTrue(
                sameFloat(got.positions[k], cloud.positions[k]), "\(label): position \(k) \(got.positions[k]) != \(cloud.positions[k])")
        }
        XCTAssertEqual(got.colors, cloud.colors, "\(label): colors")
        for (k, normal) in (cloud.normals ?? []).enumerated() {
            XCTAssertTrue(sameFloat(got.normals?[k] ?? 1e9, normal), "\(label): normal \(k)")
        }
        for (i, value) in (cloud.curvature ?? []).enumerated() {
            XCTAssertTrue(sameFloat(got.curvature?[i] ?? -1, value), "\(label): curvature \(i)")
        }
    }

    /// What other readers rely on: no `element camera`, colors as uchar red green blue, normals
    /// as nx ny nz, and PCD's WIDTH x HEIGHT for organized clouds.
    private func checkFileText(_ path: String, format: CloudFileFormat, cloud: PointCloud, _ label: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let head = String(decoding: data.prefix(2048), as: UTF8.self)
        switch format {
        case .ply:
            XCTAssertFalse(head.contains("element camera"), label)
            XCTAssertEqual(head.contains("property uchar red\nproperty uchar green\nproperty uchar blue\n"), cloud.colors != nil, label)
            XCTAssertEqual(head.contains("property float nx\nproperty float ny\nproperty float nz\n"), cloud.normals != nil, label)
            // An organized cloud's grid, for PCL; no range_grid lists, which trimesh cannot read.
            if let grid = cloud.organized {
                XCTAssertTrue(
                    head.contains("obj_info num_cols \(grid.width)\nobj_info num_rows \(grid.height)\nelement vertex \(cloud.count)\n"),
                    label)
            }
            XCTAssertFalse(head.contains("element range_grid"), label)
            if format == .ply(.binary) { XCTAssertTrue(head.contains("format binary_little_endian 1.0\n"), label) }
        case .pcd:
            let grid = cloud.organized ?? PointCloud.Grid(width: cloud.count, height: 1)
            XCTAssertTrue(head.contains("WIDTH \(grid.width)\nHEIGHT \(grid.height)\n"), label)
            XCTAssertTrue(head.contains("POINTS \(cloud.count)\n"), label)
        }
        // No stray temporary file is left next to the output.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".tmp-") }
        XCTAssertEqual(leftovers, [], label)
    }

    /// PCL's binary PCD writers padded the file to whole pages for mmap; cloudgen writes the
    /// data and nothing after it.
    func testBinaryPCDHasNoPagePadding() throws {
        let cloud = syntheticCloud(colors: true, normals: true, organized: false, curvature: true)
        for format in [CloudFileFormat.pcd(.binary), .pcd(.compressed)] {
            let path = folder.appendingPathComponent("padded.pcd").path
            try CloudWriter.write(cloud, to: path, format: format)
            let header = try CloudReader.header(path)
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            // binary: one 32-byte record per point; binary_compressed: two sizes, then the block.
            let compressed = bytes[header.dataOffset..<(header.dataOffset + 4)].reversed().reduce(0) { $0 << 8 | Int($1) }
            let dataLength = format == .pcd(.binary) ? cloud.count * 32 : 8 + compressed
            XCTAssertEqual(bytes.count, header.dataOffset + dataLength, "\(format)")
            XCTAssertEqual(try CloudReader.read(path).cloud, cloud, "\(format)")
        }
    }

    /// The path's extension and --encoding pick the format; PLY has no compressed form.
    func testFormatFromPathAndEncoding() throws {
        XCTAssertEqual(try CloudFileFormat(path: "a/b/scan.PLY", encoding: .binary), .ply(.binary))
        XCTAssertEqual(try CloudFileFormat(path: "scan.ply", encoding: .ascii), .ply(.ascii))
        XCTAssertEqual(try CloudFileFormat(path: "scan.ply", encoding: .compressed), .ply(.binary))
        XCTAssertEqual(try CloudFileFormat(path: "scan.pcd", encoding: .compressed), .pcd(.compressed))
        XCTAssertEqual(try CloudFileFormat(path: "scan.pcd"), .pcd(.binary))
        assertCloudError(.badInput, naming: "scan.xyz") { try CloudFileFormat(path: "out/scan.xyz") }
        assertCloudError(.badInput, naming: "scan") { try CloudFileFormat(path: "scan") }

        let cloud = syntheticCloud(colors: true, normals: false, organized: false)
        let path = folder.appendingPathComponent("by-extension.pcd").path
        try CloudWriter.write(cloud, to: path, encoding: .ascii)
        XCTAssertEqual(try CloudReader.header(path).format, .pcd(.ascii))
        XCTAssertEqual(try CloudReader.read(path).cloud, cloud)
    }

    /// PCL's PLY ascii writer drops points whose x is not finite but would still count them in
    /// `obj_info num_cols`; the file we write counts only what is in it, and reads back as such.
    func testPLYAsciiLeavesOutNaNPointsOfUnorganizedCloud() throws {
        var cloud = syntheticCloud(colors: true, normals: false, organized: false)
        cloud.positions[6...8] = [.nan, .nan, .nan]  // point 2
        let path = folder.appendingPathComponent("nan.ply").path
        try CloudWriter.write(cloud, to: path, format: .ply(.ascii))
        let read = try CloudReader.read(path).cloud
        XCTAssertEqual(read.count, cloud.count - 1)
        XCTAssertEqual(read.colors.map { Array($0[6...8]) }, cloud.colors.map { Array($0[9...11]) })
        XCTAssertEqual(read.positions[6], cloud.positions[9], accuracy: abs(cloud.positions[9]) * 5.1e-6)
    }

    /// Invalid depth is never written as a point (Docs/formats.md): an unorganized cloud's points with a
    /// NaN or infinite coordinate are left out of every format alike, the header counts what is
    /// written, and the writer returns that count.
    func testEveryFormatLeavesOutNonFinitePointsOfUnorganizedCloud() throws {
        var cloud = syntheticCloud(colors: true, normals: true, organized: false)
        cloud.positions[6...8] = [.nan, .nan, .nan]  // point 2
        cloud.positions[13] = .infinity  // point 4: y only
        cloud.positions[44] = -.nan  // point 14: z only
        let finite = (0..<cloud.count).filter { i in cloud.positions[3 * i..<3 * i + 3].allSatisfy(\.isFinite) }
        XCTAssertEqual(finite.count, cloud.count - 3)
        for format in [CloudFileFormat.ply(.binary), .ply(.ascii), .pcd(.ascii), .pcd(.binary), .pcd(.compressed)] {
            let ext = { if case .ply = format { return "ply" } else { return "pcd" } }()
            let path = folder.appendingPathComponent("holes.\(ext)").path
            let written = try CloudWriter.write(cloud, to: path, format: format)
            XCTAssertEqual(written, finite.count, "\(format)")
            let read = try CloudReader.read(path)
            XCTAssertEqual(read.header.pointCount, finite.count, "\(format)")
            XCTAssertEqual(read.cloud.count, finite.count, "\(format)")
            XCTAssertNil(read.cloud.organized, "\(format)")
            XCTAssertTrue(read.cloud.positions.allSatisfy(\.isFinite), "\(format)")
            // The points that are there are the finite ones, in order, with their own colors.
            for (k, i) in finite.enumerated() {
                let tolerance = format == .ply(.ascii) ? abs(cloud.positions[3 * i + 2]) * 5.1e-6 : 0
                XCTAssertEqual(read.cloud.positions[3 * k + 2], cloud.positions[3 * i + 2], accuracy: tolerance, "\(format) point \(k)")
                XCTAssertEqual(read.cloud.colors?[3 * k], cloud.colors?[3 * i], "\(format) point \(k)")
            }
        }
    }

    /// An organized cloud keeps its grid, empty cells included, in every format; the count
    /// returned is what the file holds.
    func testWrittenCountOfOrganizedCloud() throws {
        let cloud = syntheticCloud(colors: false, normals: false, organized: true)
        XCTAssertLessThan(cloud.finiteCount, cloud.count)
        for (name, format) in [
            ("o.ply", CloudFileFormat.ply(.binary)), ("oa.ply", .ply(.ascii)), ("o.pcd", .pcd(.binary)),
            ("oc.pcd", .pcd(.compressed)), ("oa.pcd", .pcd(.ascii))
        ] {
            let path = folder.appendingPathComponent(name).path
            XCTAssertEqual(try CloudWriter.write(cloud, to: path, format: format), cloud.count, name)
            XCTAssertEqual(try CloudReader.read(path).cloud.organized, cloud.organized, name)
        }
    }

    /// Written files get a new file's usual permissions (PCL's binary PCD writer alone would
    /// create them 0600).
    func testWrittenFilesHaveUsualPermissions() throws {
        let mask = umask(0)
        umask(mask)
        let cloud = syntheticCloud(colors: false, normals: false, organized: false)
        for (name, format) in [("p.pcd", CloudFileFormat.pcd(.binary)), ("p.ply", .ply(.binary))] {
            let path = folder.appendingPathComponent(name).path
            try CloudWriter.write(cloud, to: path, format: format)
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! Int
            XCTAssertEqual(mode, 0o666 & ~Int(mask), name)
        }
    }

    /// Writing over an existing file replaces it whole.
    func testOverwriteReplacesFile() throws {
        let path = folder.appendingPathComponent("again.pcd").path
        try CloudWriter.write(syntheticCloud(colors: true, normals: true, organized: false), to: path)
        let smaller = syntheticCloud(colors: false, normals: false, organized: true)
        try CloudWriter.write(smaller, to: path)
        XCTAssertEqual(try CloudReader.read(path).cloud.organized, smaller.organized)
        XCTAssertEqual(try CloudReader.read(path).cloud.count, smaller.count)
    }
}
