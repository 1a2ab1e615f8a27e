import CloudCore
import CloudFiles
import Foundation
import SharedTestData
import XCTest

/// Bad files fail with CloudError.badInput naming the file, before PCL allocates what their
/// header claims; failed writes leave nothing behind.
final class BadInputTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = try makeScratchFolder()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func file(_ name: String, _ text: String, body: [UInt8] = []) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(Array(text.utf8) + body).write(to: url)
        return url.path
    }

    private func pcdHeader(
        points: String, width: String? = nil, fields: String = "x y z", size: String = "4 4 4",
        type: String = "F F F", count: String = "1 1 1", data: String = "binary"
    ) -> String {
        """
        # .PCD v0.7 - Point Cloud Data file format
        VERSION 0.7
        FIELDS \(fields)
        SIZE \(size)
        TYPE \(type)
        COUNT \(count)
        WIDTH \(width ?? points)
        HEIGHT 1
        VIEWPOINT 0 0 0 1 0 0 0
        POINTS \(points)
        DATA \(data)

        """
    }

    /// A written file with its data cut short by `cut` bytes.
    private func truncated(_ name: String, format: CloudFileFormat, cut: Int) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try CloudWriter.write(syntheticCloud(colors: true, normals: true, organized: false), to: path, format: format)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try data.prefix(data.count - cut).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testPCDClaimingATrillionPoints() throws {
        let path = try file("huge.pcd", pcdHeader(points: "1000000000000"), body: Array(repeating: 0, count: 24))
        assertCloudError(.badInput, naming: "huge.pcd", containing: "1000000000000") { try CloudReader.read(path) }
    }

    /// 10^8 points fit under the cap, but not in 8 bytes of data: PCL alone would allocate 1.2 GB first.
    func testPCDClaimingMorePointsThanItsData() throws {
        let path = try file("big.pcd", pcdHeader(points: "100000000"), body: Array(repeating: 0, count: 8))
        assertCloudError(.badInput, naming: "big.pcd", containing: "truncated") { try CloudReader.read(path) }
    }

    /// LZF turns one byte into at most 88: a 1 KB block cannot hold the 1.2 GB that 10^8 points
    /// of x y z need, and PCL would reserve all of it (twice) before finding out.
    func testPCDCompressedBlockTooSmallForItsPoints() throws {
        let block = 1000
        var body = [UInt8](repeating: 0, count: 8 + block)
        let uncompressed = UInt32(100_000_000 * 12)
        withUnsafeBytes(of: UInt32(block).littleEndian) { body.replaceSubrange(0..<4, with: $0) }
        withUnsafeBytes(of: uncompressed.littleEndian) { body.replaceSubrange(4..<8, with: $0) }
        let path = try file("bomb.pcd", pcdHeader(points: "100000000", data: "binary_compressed"), body: body)
        XCTAssertLessThan(try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int, 1400)
        let message = "1008 bytes of binary_compressed data cannot unpack to 100000000 points x 12 bytes"
        assertCloudError(.badInput, naming: "bomb.pcd", containing: message) { try CloudReader.read(path) }
    }

    /// The bound is LZF's own: a block at the largest ratio a real stream can reach passes the
    /// header check (and then decompresses), one byte more of claimed output does not.
    func testPCDCompressedRatioBoundIsExact() throws {
        XCTAssertTrue(LZF.canExpand(10, to: 880))
        XCTAssertFalse(LZF.canExpand(10, to: 881))
        XCTAssertFalse(LZF.canExpand(0, to: 1))
        XCTAssertTrue(LZF.canExpand(Int.max / 2, to: Int.max))
        // A real, highly compressible cloud (every point the same) stays readable.
        let same = PointCloud(positions: Array(repeating: [Float(1), 2, 3], count: 20_000).flatMap { $0 })
        let path = folder.appendingPathComponent("same.pcd").path
        try CloudWriter.write(same, to: path, format: .pcd(.compressed))
        XCTAssertEqual(try CloudReader.read(path).cloud, same)
    }

    func testPLYClaimingATrillionVertices() throws {
        let path = try file(
            "huge.ply",
            """
            ply
            format binary_little_endian 1.0
            element vertex 1000000000000
            property float x
            property float y
            property float z
            end_header

            """, body: Array(repeating: 0, count: 24))
        assertCloudError(.badInput, naming: "huge.ply", containing: "1000000000000") { try CloudReader.read(path) }
    }

    /// PCL's PLY reader sizes its buffer from obj_info num_cols x num_rows.
    func testPLYClaimingAHugeGrid() throws {
        let path = try file(
            "grid.ply",
            """
            ply
            format ascii 1.0
            obj_info num_cols 1000000
            obj_info num_rows 1000000
            element vertex 1
            property float x
            property float y
            property float z
            end_header
            1 2 3

            """)
        assertCloudError(.badInput, naming: "grid.ply", containing: "num_cols") { try CloudReader.read(path) }
    }

    func testTruncatedBinaryPCD() throws {
        let path = try truncated("cut.pcd", format: .pcd(.binary), cut: 40)
        assertCloudError(.badInput, naming: "cut.pcd", containing: "truncated") { try CloudReader.read(path) }
    }

    func testTruncatedCompressedPCD() throws {
        let path = try truncated("cutz.pcd", format: .pcd(.compressed), cut: 40)
        assertCloudError(.badInput, naming: "cutz.pcd", containing: "truncated") { try CloudReader.read(path) }
    }

    func testTruncatedBinaryPLY() throws {
        let path = try truncated("cut.ply", format: .ply(.binary), cut: 40)
        assertCloudError(.badInput, naming: "cut.ply", containing: "truncated") { try CloudReader.read(path) }
    }

    func testTruncatedAsciiPCD() throws {
        // Long lines: cutting 200 bytes removes whole points, not just digits.
        let path = try truncated("cut-ascii.pcd", format: .pcd(.ascii), cut: 200)
        assertCloudError(.badInput, naming: "cut-ascii.pcd", containing: "truncated") { try CloudReader.read(path) }
    }

    func testCompressedSizeThatDisagreesWithHeader() throws {
        let path = folder.appendingPathComponent("lies.pcd").path
        try CloudWriter.write(syntheticCloud(colors: false, normals: false, organized: false), to: path, format: .pcd(.compressed))
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        let header = try CloudReader.header(path)
        data[header.dataOffset + 4] ^= 0x40  // the uncompressed size
        try data.write(to: URL(fileURLWithPath: path))
        assertCloudError(.badInput, naming: "lies.pcd", containing: "unpacks") { try CloudReader.read(path) }
    }

    func testInconsistentPCDHeaders() throws {
        let zeros = Array(repeating: UInt8(0), count: 1200)
        let cases: [(String, String, String)] = [
            ("points.pcd", pcdHeader(points: "100", width: "99"), "WIDTH x HEIGHT"),
            ("size.pcd", pcdHeader(points: "10", size: "4 4"), "SIZE"),
            ("type.pcd", pcdHeader(points: "10", type: "F F"), "TYPE"),
            ("count.pcd", pcdHeader(points: "10", count: "1 1 1 1"), "COUNT"),
            ("oddsize.pcd", pcdHeader(points: "10", size: "4 4 3"), "SIZE 3"),
            ("noz.pcd", pcdHeader(points: "10", fields: "x y w"), "no z field"),
            ("encoding.pcd", pcdHeader(points: "10", data: "zip"), "DATA 'zip'"),
            ("negative.pcd", pcdHeader(points: "-10"), "not a count")
        ]
        for (name, text, detail) in cases {
            let path = try file(name, text, body: zeros)
            assertCloudError(.badInput, naming: name, containing: detail) { try CloudReader.read(path) }
        }
    }

    func testPLYWithoutCoordinates() throws {
        let path = try file(
            "noxyz.ply",
            """
            ply
            format ascii 1.0
            element vertex 1
            property float x
            property float y
            end_header
            1 2

            """)
        assertCloudError(.badInput, naming: "noxyz.ply", containing: "no z") { try CloudReader.read(path) }
    }

    func testMissingFile() {
        let path = folder.appendingPathComponent("absent.pcd").path
        assertCloudError(.badInput, naming: "absent.pcd", containing: "no such file") { try CloudReader.read(path) }
    }

    func testGarbageFiles() throws {
        var random = SplitMix64(seed: 3)
        let garbage = (0..<5000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let cases: [(String, [UInt8])] = [
            ("garbage.pcd", garbage),
            ("empty.ply", []),
            ("text.ply", Array("hello world\n".utf8)),
            ("almost.ply", Array("ply\nformat ascii 1.0\nelement vertex 1\n".utf8))
        ]
        for (name, bytes) in cases {
            let url = folder.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            assertCloudError(.badInput, naming: name) { try CloudReader.read(url.path) }
        }
        assertCloudError(.badInput, naming: folder.lastPathComponent) { try CloudReader.read(folder.path) }
    }

    // MARK: failed writes

    func testWriteIntoMissingFolderLeavesNothing() throws {
        let missing = folder.appendingPathComponent("not-there")
        let path = missing.appendingPathComponent("scan.ply").path
        assertCloudError(.deviceOrIO, naming: path, containing: "does not exist") {
            try CloudWriter.write(syntheticCloud(colors: true, normals: false, organized: false), to: path)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing.path))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [])
    }

    /// Failures after the temporary file exists (PCL refusing the cloud, rename failing) remove it.
    func testFailedWritesLeaveNoTemporaryFile() throws {
        let empty = PointCloud(positions: [])
        for format in [CloudFileFormat.ply(.binary), .ply(.ascii), .pcd(.ascii), .pcd(.binary), .pcd(.compressed)] {
            let path = folder.appendingPathComponent("empty.out").path
            assertCloudError(.badInput, naming: path) { try CloudWriter.write(empty, to: path, format: format) }
        }
        // An unorganized cloud without one finite point has nothing to write, in any format.
        let allNaN = PointCloud(positions: [.nan, .nan, .nan, 1, .infinity, 2])
        for format in [CloudFileFormat.ply(.binary), .ply(.ascii), .pcd(.ascii), .pcd(.binary), .pcd(.compressed)] {
            let path = folder.appendingPathComponent("nan.out").path
            assertCloudError(.badInput, naming: path, containing: "finite") { try CloudWriter.write(allNaN, to: path, format: format) }
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [])

        // The destination is a folder: refused (bad input) before anything is written.
        let occupied = folder.appendingPathComponent("taken.pcd")
        try FileManager.default.createDirectory(at: occupied, withIntermediateDirectories: false)
        assertCloudError(.badInput, naming: occupied.path) {
            try CloudWriter.write(syntheticCloud(colors: false, normals: false, organized: false), to: occupied.path)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["taken.pcd"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: occupied.path), [])
    }
}
