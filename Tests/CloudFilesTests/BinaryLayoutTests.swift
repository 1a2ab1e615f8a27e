import CloudCore
import CloudFiles
import Foundation
import SharedTestData
import XCTest

/// The binary files the shim writes itself, taken apart byte by byte here: PLY headers exactly
/// as Docs/formats.md promises, records laid out as the header says and agreeing with what PCL's
/// reader makes of the same file, and PCD binary / binary_compressed exactly as PCL's PCDWriter
/// writes them. Clouds larger than the shim's 1 MiB write chunks check the chunk boundaries.
final class BinaryLayoutTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = try makeScratchFolder()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func written(_ cloud: PointCloud, _ format: CloudFileFormat, _ name: String) throws -> (path: String, bytes: [UInt8]) {
        let path = folder.appendingPathComponent(name).path
        try CloudWriter.write(cloud, to: path, format: format)
        return (path, [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    // MARK: PLY

    /// The header of Docs/formats.md ("PLY written"), line for line.
    private func documentedPLYHeader(vertices: Int, colors: Bool, normals: Bool, grid: PointCloud.Grid? = nil) -> String {
        var lines = ["ply", "format binary_little_endian 1.0"]
        if let grid { lines += ["obj_info num_cols \(grid.width)", "obj_info num_rows \(grid.height)"] }
        lines += ["element vertex \(vertices)", "property float x", "property float y", "property float z"]
        if colors { lines += ["property uchar red", "property uchar green", "property uchar blue"] }
        if normals { lines += ["property float nx", "property float ny", "property float nz", "property float curvature"] }
        return (lines + ["end_header"]).joined(separator: "\n") + "\n"
    }

    func testPLYBinaryHeaderIsAsDocumented() throws {
        for colors in [false, true] {
            for normals in [false, true] {
                let label = "colors=\(colors) normals=\(normals)"
                let cloud = syntheticCloud(colors: colors, normals: normals, organized: false)
                let (path, bytes) = try written(cloud, .ply(.binary), "h-\(colors)-\(normals).ply")
                let expected = documentedPLYHeader(vertices: cloud.count, colors: colors, normals: normals)
                XCTAssertEqual(String(decoding: bytes.prefix(expected.utf8.count), as: UTF8.self), expected, label)
                try checkPLYRecords(bytes, headerBytes: expected.utf8.count, cloud: cloud, path: path, label)
            }
        }
    }

    /// An organized cloud: every cell is a vertex in row order (empty ones NaN), under obj_info's
    /// grid; it reads back as the grid.
    func testOrganizedPLYBinaryGrid() throws {
        let cloud = syntheticCloud(colors: true, normals: true, organized: true)
        try checkOrganizedPLY(cloud, name: "grid.ply")
    }

    /// 640 x 480 with colors and normals: several write chunks of records.
    func testLargeOrganizedPLYBinary() throws {
        try checkOrganizedPLY(largeCloud(width: 640, height: 480, colors: true, normals: true), name: "large-grid.ply")
    }

    /// 100,000 points of 31 bytes: three chunks and a partial one.
    func testLargeUnorganizedPLYBinary() throws {
        let cloud = largeCloud(width: 100_000, height: 1, colors: true, normals: true)
        let (path, bytes) = try written(cloud, .ply(.binary), "large.ply")
        let header = documentedPLYHeader(vertices: cloud.count, colors: true, normals: true)
        XCTAssertEqual(String(decoding: bytes.prefix(header.utf8.count), as: UTF8.self), header)
        try checkPLYRecords(bytes, headerBytes: header.utf8.count, cloud: cloud, path: path, "large")
    }

    private func checkOrganizedPLY(_ cloud: PointCloud, name: String) throws {
        let grid = try XCTUnwrap(cloud.organized)
        XCTAssertLessThan(cloud.finiteCount, cloud.count, "the test needs empty cells")
        let (path, bytes) = try written(cloud, .ply(.binary), name)
        let header = documentedPLYHeader(vertices: cloud.count, colors: cloud.colors != nil, normals: cloud.normals != nil, grid: grid)
        XCTAssertEqual(String(decoding: bytes.prefix(header.utf8.count), as: UTF8.self), header, name)

        // Vertex records: every cell in grid order, nothing after them.
        var reader = ByteReader(bytes: bytes, offset: header.utf8.count)
        var mismatches = 0
        for i in 0..<cloud.count {
            mismatches += readPLYRecord(&reader, cloud: cloud, point: i) ? 0 : 1
        }
        XCTAssertEqual(mismatches, 0, name)
        XCTAssertEqual(reader.offset, bytes.count, "\(name): bytes after the vertices")

        let read = try CloudReader.read(path)
        XCTAssertEqual(read.cloud.organized, grid, name)
        XCTAssertEqual(differingFloats(read.cloud.positions, cloud.positions), 0, "\(name): positions read back")
        XCTAssertEqual(read.cloud.colors, cloud.colors, "\(name): colors read back")
        XCTAssertEqual(differingFloats(read.cloud.normals ?? [], cloud.normals ?? []), 0, "\(name): normals read back")
    }

    private func plyRecordBytes(_ cloud: PointCloud) -> Int {
        12 + (cloud.colors != nil ? 3 : 0) + (cloud.normals != nil ? 16 : 0)
    }

    /// Reads point `point`'s PLY record and compares it with the cloud, bit for bit.
    private func readPLYRecord(_ reader: inout ByteReader, cloud: PointCloud, point i: Int) -> Bool {
        var same = true
        for k in 0..<3 { same = same && reader.float().bitPattern == cloud.positions[3 * i + k].bitPattern }
        if let colors = cloud.colors {
            for k in 0..<3 { same = same && reader.uint8() == colors[3 * i + k] }
        }
        if let normals = cloud.normals {
            for k in 0..<3 { same = same && reader.float().bitPattern == normals[3 * i + k].bitPattern }
            same = same && reader.float().bitPattern == (cloud.curvature?[i] ?? 0).bitPattern  // 0 when the cloud has none
        }
        return same
    }

    /// Every record of an unorganized PLY, then what PCL's reader made of the same file.
    private func checkPLYRecords(_ bytes: [UInt8], headerBytes: Int, cloud: PointCloud, path: String, _ label: String) throws {
        XCTAssertEqual(bytes.count, headerBytes + cloud.count * plyRecordBytes(cloud), "\(label): file size")
        guard bytes.count == headerBytes + cloud.count * plyRecordBytes(cloud) else { return }
        var reader = ByteReader(bytes: bytes, offset: headerBytes)
        var mismatches = 0
        for i in 0..<cloud.count {
            mismatches += readPLYRecord(&reader, cloud: cloud, point: i) ? 0 : 1
        }
        XCTAssertEqual(mismatches, 0, "\(label): records that differ from the cloud")

        let read = try CloudReader.read(path)
        // The file's own property names.
        var expectedFields = ["x", "y", "z"]
        if cloud.colors != nil { expectedFields += ["red", "green", "blue"] }
        if cloud.normals != nil { expectedFields += ["nx", "ny", "nz", "curvature"] }
        XCTAssertEqual(read.fields, expectedFields, label)
        XCTAssertNil(read.cloud.organized, label)
        XCTAssertEqual(read.cloud.count, cloud.count, label)
        XCTAssertEqual(differingFloats(read.cloud.positions, cloud.positions), 0, "\(label): positions read back")
        XCTAssertEqual(read.cloud.colors, cloud.colors, "\(label): colors read back")
        if let normals = cloud.normals {
            XCTAssertEqual(differingFloats(read.cloud.normals ?? [], normals), 0, "\(label): normals read back")
        }
    }

    // MARK: PCD

    /// The header PCL's PCDWriter writes for these fields (its binary and binary_compressed
    /// headers differ only in the DATA line).
    private func pclHeader(_ cloud: PointCloud, data: String) -> String {
        var fields = ["x", "y", "z"]
        if cloud.colors != nil { fields.append("rgb") }
        if cloud.normals != nil { fields += ["normal_x", "normal_y", "normal_z", "curvature"] }
        let grid = cloud.organized ?? PointCloud.Grid(width: cloud.count, height: 1)
        return """
            # .PCD v0.7 - Point Cloud Data file format
            VERSION 0.7
            FIELDS \(fields.joined(separator: " "))
            SIZE \(fields.map { _ in "4" }.joined(separator: " "))
            TYPE \(fields.map { _ in "F" }.joined(separator: " "))
            COUNT \(fields.map { _ in "1" }.joined(separator: " "))
            WIDTH \(grid.width)
            HEIGHT \(grid.height)
            VIEWPOINT 0 0 0 1 0 0 0
            POINTS \(cloud.count)
            DATA \(data)

            """
    }

    /// The cloud's fields one after the other, as binary_compressed stores them before LZF:
    /// all x, all y, all z, all rgb (packed 0x00RRGGBB), all normal_x ..., all curvature (0 when the
    /// cloud has none).
    private func fieldPlanes(_ cloud: PointCloud) -> [UInt32] {
        var planes: [UInt32] = []
        for k in 0..<3 { planes += (0..<cloud.count).map { cloud.positions[3 * $0 + k].bitPattern } }
        if let c = cloud.colors {
            planes += (0..<cloud.count).map { UInt32(c[3 * $0]) << 16 | UInt32(c[3 * $0 + 1]) << 8 | UInt32(c[3 * $0 + 2]) }
        }
        if let n = cloud.normals {
            for k in 0..<3 { planes += (0..<cloud.count).map { n[3 * $0 + k].bitPattern } }
            planes += (0..<cloud.count).map { cloud.curvature?[$0].bitPattern ?? 0 }
        }
        return planes
    }

    /// Binary PCD: PCL's header, then one record per point (fields in header order), nothing after.
    func testPCDBinaryLayout() throws {
        for cloud in [
            syntheticCloud(colors: true, normals: true, organized: true, curvature: true),
            syntheticCloud(colors: false, normals: false, organized: false),
            largeCloud(width: 50_000, height: 1, colors: true, normals: true)
        ] {
            let label = "colors=\(cloud.colors != nil) normals=\(cloud.normals != nil) count=\(cloud.count)"
            let (_, bytes) = try written(cloud, .pcd(.binary), "binary.pcd")
            let header = pclHeader(cloud, data: "binary")
            XCTAssertEqual(String(decoding: bytes.prefix(header.utf8.count), as: UTF8.self), header, label)
            let planes = fieldPlanes(cloud)
            let fields = planes.count / cloud.count
            XCTAssertEqual(bytes.count, header.utf8.count + 4 * planes.count, label)
            guard bytes.count == header.utf8.count + 4 * planes.count else { continue }
            var reader = ByteReader(bytes: bytes, offset: header.utf8.count)
            var mismatches = 0
            for i in 0..<cloud.count {
                for f in 0..<fields where reader.uint32() != planes[f * cloud.count + i] { mismatches += 1 }
            }
            XCTAssertEqual(mismatches, 0, label)
        }
    }

    /// binary_compressed: PCL's header, the compressed and uncompressed sizes, and LZF data that
    /// unpacks to the field planes; PCL's reader gets every bit back.
    func testPCDCompressedLayout() throws {
        for cloud in [
            syntheticCloud(colors: true, normals: true, organized: true, curvature: true),
            syntheticCloud(colors: false, normals: false, organized: false),
            largeCloud(width: 320, height: 240, colors: true, normals: true)
        ] {
            let label = "colors=\(cloud.colors != nil) normals=\(cloud.normals != nil) count=\(cloud.count)"
            let (path, bytes) = try written(cloud, .pcd(.compressed), "compressed.pcd")
            let header = pclHeader(cloud, data: "binary_compressed")
            XCTAssertEqual(String(decoding: bytes.prefix(header.utf8.count), as: UTF8.self), header, label)
            var reader = ByteReader(bytes: bytes, offset: header.utf8.count)
            let compressed = Int(reader.uint32())
            let planes = fieldPlanes(cloud)
            XCTAssertEqual(Int(reader.uint32()), 4 * planes.count, "\(label): uncompressed size")
            XCTAssertEqual(bytes.count, reader.offset + compressed, "\(label): file size")
            let unpacked = try XCTUnwrap(lzfDecompress(bytes[reader.offset...], size: 4 * planes.count), label)
            var unpackedReader = ByteReader(bytes: unpacked, offset: 0)
            XCTAssertEqual(planes.filter { unpackedReader.uint32() != $0 }.count, 0, "\(label): planes")

            let read = try CloudReader.read(path).cloud
            XCTAssertEqual(read.organized, cloud.organized, label)
            XCTAssertEqual(differingFloats(read.positions, cloud.positions), 0, "\(label): positions read back")
            XCTAssertEqual(read.colors, cloud.colors, "\(label): colors read back")
            XCTAssertEqual(differingFloats(read.normals ?? [], cloud.normals ?? []), 0, "\(label): normals read back")
        }
    }
}

/// A width x height cloud with smooth surfaces (so LZF finds matches) and, when organized, empty
/// cells in runs and alone.
private func largeCloud(width: Int, height: Int, colors: Bool, normals: Bool) -> PointCloud {
    let count = width * height
    var positions = [Float](repeating: .nan, count: 3 * count)
    var rgb = [UInt8](repeating: 0, count: 3 * count)
    var normal = [Float](repeating: .nan, count: 3 * count)
    for i in 0..<count {
        if height > 1 && (i % 7 == 3 || i % 1000 < 40) { continue }
        let u = Float(i % width)
        let v = Float(i / width)
        let z = 1.5 + 0.001 * Float(i % 13)
        positions[3 * i] = (u - 320) * z / 525
        positions[3 * i + 1] = (v - 240) * z / 525
        positions[3 * i + 2] = z
        rgb[3 * i] = UInt8(truncatingIfNeeded: i)
        rgb[3 * i + 1] = UInt8(truncatingIfNeeded: i >> 8)
        rgb[3 * i + 2] = 200
        normal[3 * i] = 0.01 * Float(i % 5)
        normal[3 * i + 1] = -0.02
        normal[3 * i + 2] = -1
    }
    return PointCloud(
        positions: positions, colors: colors ? rgb : nil, normals: normals ? normal : nil,
        organized: height > 1 ? PointCloud.Grid(width: width, height: height) : nil)
}

/// Positions in which two float arrays differ by bits (NaN matches NaN), or the longer count.
private func differingFloats(_ a: [Float], _ b: [Float]) -> Int {
    guard a.count == b.count else { return max(a.count, b.count) }
    return zip(a, b).filter { !sameFloat($0, $1) }.count
}

/// Little-endian values from a byte array.
private struct ByteReader {
    let bytes: [UInt8]
    var offset: Int

    mutating func uint8() -> UInt8 {
        defer { offset += 1 }
        return offset < bytes.count ? bytes[offset] : 0
    }

    mutating func uint32() -> UInt32 {
        defer { offset += 4 }
        guard offset + 4 <= bytes.count else { return 0 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }

    mutating func int32() -> Int32 { Int32(bitPattern: uint32()) }
    mutating func float() -> Float { Float(bitPattern: uint32()) }
}

/// LZF as PCD binary_compressed uses it: a control byte below 32 starts a literal run of
/// control + 1 bytes; otherwise its top 3 bits are a back reference's length - 2 (7: add the next
/// byte), its low 5 bits and the following byte the distance back - 1.
private func lzfDecompress(_ input: ArraySlice<UInt8>, size: Int) -> [UInt8]? {
    var out: [UInt8] = []
    out.reserveCapacity(size)
    var i = input.startIndex
    while i < input.endIndex {
        let control = Int(input[i])
        i += 1
        if control < 32 {
            guard i + control + 1 <= input.endIndex else { return nil }
            out += input[i...(i + control)]
            i += control + 1
            continue
        }
        var length = control >> 5
        if length == 7 {
            guard i < input.endIndex else { return nil }
            length += Int(input[i])
            i += 1
        }
        guard i < input.endIndex else { return nil }
        let distance = ((control & 0x1F) << 8) + Int(input[i]) + 1
        i += 1
        guard distance <= out.count else { return nil }
        // Byte by byte: the reference may overlap what it writes.
        for _ in 0..<(length + 2) { out.append(out[out.count - distance]) }
    }
    return out.count == size ? out : nil
}
