import CloudCore
import CloudFiles
import Foundation
import SharedTestData
import XCTest

/// PCL's own programs (pcl-tools) as the ground truth for our readers and writers: PCL's reader
/// must get every bit of what we write, and we must get every value of what PCL writes.
final class PCLToolInteropTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws { folder = try makeScratchFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private let clouds = [
        ("unorganized", syntheticCloud(colors: true, normals: true, organized: false, curvature: true)),
        ("organized", syntheticCloud(colors: true, normals: true, organized: true, curvature: true)),
        ("xyz", syntheticCloud(colors: false, normals: false, organized: false))
    ]

    /// Every PCD encoding we write, converted by PCL to binary PCD: the records PCL decoded are
    /// exactly the records of our own binary file (so PCL unpacks our LZF and parses our ascii to
    /// the same bits).
    func testPCLReadsOurPCDToTheSameRecords() throws {
        for (name, cloud) in clouds {
            let ours = folder.appendingPathComponent("\(name)-binary.pcd").path
            try CloudWriter.write(cloud, to: ours, format: .pcd(.binary))
            let ourRecords = try records(ours)
            for encoding in [CloudFileFormat.PCDEncoding.ascii, .compressed] {
                let input = folder.appendingPathComponent("\(name)-\(encoding).pcd").path
                let output = folder.appendingPathComponent("\(name)-\(encoding)-pcl.pcd").path
                try CloudWriter.write(cloud, to: input, format: .pcd(encoding))
                try runPCLTool("pcl_convert_pcd_ascii_binary", [input, output, "1"])
                XCTAssertEqual(try records(output), ourRecords, "\(name) \(encoding): PCL read other values")
            }
        }
    }

    /// Our PLY files (binary and ascii, organized with range_grid too) through PCL's PLY reader:
    /// the cloud PCL makes of them equals ours.
    func testPCLReadsOurPLY() throws {
        for (name, cloud) in clouds {
            for encoding in [CloudFileFormat.PLYEncoding.binary, .ascii] {
                let input = folder.appendingPathComponent("\(name)-\(encoding).ply").path
                let output = folder.appendingPathComponent("\(name)-\(encoding)-pcl.pcd").path
                try CloudWriter.write(cloud, to: input, format: .ply(encoding))
                try runPCLTool("pcl_ply2pcd", ["-format", "1", input, output])
                let read = try CloudReader.read(output).cloud
                XCTAssertEqual(read.organized, cloud.organized, "\(name) \(encoding)")
                XCTAssertEqual(differingBits(read.positions, cloud.positions), 0, "\(name) \(encoding): positions")
                // PCL leaves an empty cell's color as it finds it; only points have colors.
                XCTAssertEqual(colorsOfPoints(read), colorsOfPoints(cloud), "\(name) \(encoding): colors")
                XCTAssertEqual(differingBits(read.normals ?? [], cloud.normals ?? []), 0, "\(name) \(encoding): normals")
            }
        }
    }

    /// PCL's writers' PLY (with its `element camera` and obj_info lines, binary and ascii) and
    /// ascii PCD (9 digits asked for) read back as the cloud PCL was given: every bit, but for
    /// PCL's ascii PLY, which prints 6 significant digits whatever it is asked.
    func testWeReadPCLsFiles() throws {
        for (name, cloud) in clouds {
            let source = folder.appendingPathComponent("\(name).pcd").path
            try CloudWriter.write(cloud, to: source, format: .pcd(.binary))
            var written: [(String, [String], tolerance: Float)] = []
            for format in ["0", "1"] {
                for camera in ["0", "1"] {
                    let ply = folder.appendingPathComponent("\(name)-\(format)-\(camera).ply").path
                    written.append((ply, ["pcl_pcd2ply", "-format", format, "-use_camera", camera, source, ply], format == "0" ? 1e-5 : 0))
                }
            }
            let ascii = folder.appendingPathComponent("\(name)-ascii.pcd").path
            written.append((ascii, ["pcl_convert_pcd_ascii_binary", source, ascii, "0", "9"], 0))
            for (path, command, tolerance) in written {
                try runPCLTool(command[0], Array(command.dropFirst()))
                let read = try CloudReader.read(path).cloud
                let label = "\(name): \(command.joined(separator: " "))"
                // PCL's PLY writer leaves out an unorganized cloud's NaN points; ours has none.
                XCTAssertEqual(read.count, cloud.count, label)
                guard read.count == cloud.count else { continue }
                XCTAssertEqual(differing(read.positions, cloud.positions, tolerance), 0, "\(label): positions")
                XCTAssertEqual(colorsOfPoints(read), colorsOfPoints(cloud), "\(label): colors")
                XCTAssertEqual(differing(read.normals ?? [], cloud.normals ?? [], tolerance), 0, "\(label): normals")
            }
        }
    }

    /// The point records of a binary PCD (PCL pads its files to whole pages: cut to POINTS).
    private func records(_ path: String) throws -> [UInt8] {
        let header = try CloudReader.header(path)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let step = 4 * header.fields.count
        let end = header.dataOffset + header.pointCount * step
        XCTAssertGreaterThanOrEqual(bytes.count, end, path)
        return Array(bytes[header.dataOffset..<min(end, bytes.count)])
    }
}

/// Values whose bits differ (NaN equals NaN).
private func differingBits(_ a: [Float], _ b: [Float]) -> Int { differing(a, b, 0) }

/// Values farther apart than `tolerance` relative to their size (0: bit for bit; NaN equals NaN).
private func differing(_ a: [Float], _ b: [Float], _ tolerance: Float) -> Int {
    guard a.count == b.count else { return max(a.count, b.count) }
    return zip(a, b).filter { x, y in
        if x.isNaN && y.isNaN { return false }
        return tolerance == 0 ? x.bitPattern != y.bitPattern : !(abs(x - y) <= tolerance * max(abs(y), 1e-3))
    }.count
}

/// The colors of the points with finite coordinates, in order.
private func colorsOfPoints(_ cloud: PointCloud) -> [UInt8]? {
    guard let colors = cloud.colors else { return nil }
    return (0..<cloud.count).filter { cloud.point($0).x.isFinite }.flatMap { colors[(3 * $0)..<(3 * $0 + 3)] }
}
