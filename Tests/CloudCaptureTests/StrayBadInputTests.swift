import CloudCapture
import CloudCore
import Foundation
import SharedTestData
import XCTest

/// Every malformed part of a Stray Scanner export is refused with a message naming the file and
/// the problem, before any frame when the problem is in the export's index files, at the frame
/// when it is in the frame's own files.
final class StrayBadInputTests: XCTestCase {
    private func open(_ folder: String) throws -> DepthSource {
        try SourceSpec(parsing: "stray:\(folder)").open(options: SourceOptions(minConfidence: 0))
    }

    private func readAll(_ folder: String) throws {
        let source = try open(folder)
        while try source.nextFrame() != nil {}
    }

    func testMalformedCameraMatrixAndOdometryAreRefusedNamingTheFileAndLine() throws {
        let fixture = try StrayFixture(in: DatasetFixture.scratch(self))
        let matrix = fixture.folder + "/camera_matrix.csv"
        let original = try String(contentsOfFile: matrix, encoding: .utf8)
        for (text, detail) in [
            (original.replacingOccurrences(of: "0.0, 0.0, 1.0", with: "0.0, nan, 1.0"), "line 3: field 2 'nan' is not a finite number"),
            ("1, 0, 2\n0, 1, 2", "2 line(s); a camera matrix is 3 lines"),
            (original.replacingOccurrences(of: "0.0, 0.0, 1.0", with: "0.0, 0.0"), "line 3: 2 field(s)"),
            (original.replacingOccurrences(of: "0.0, 0.0, 1.0", with: "0.0, 0.0, 2.0"), "not an intrinsic matrix"),
            ("100, 3, 160\n0, 100, 120\n0, 0, 1", "the skew"),
            ("-100, 0, 160\n0, 100, 120\n0, 0, 1", "fx")
        ] {
            try text.write(toFile: matrix, atomically: true, encoding: .utf8)
            assertCloudError(.badInput, naming: matrix, containing: detail) { try open(fixture.folder) }
        }
        try original.write(toFile: matrix, atomically: true, encoding: .utf8)

        let odometry = fixture.folder + "/odometry.csv"
        let lines = try String(contentsOfFile: odometry, encoding: .utf8).split(separator: "\n").map(String.init)
        let header = lines[0]
        func with(_ body: [String]) -> String { ([header] + body).joined(separator: "\n") + "\n" }
        try with(Array(lines[1...2])).write(toFile: odometry, atomically: true, encoding: .utf8)
        assertCloudError(.badInput, naming: fixture.folder, containing: "3 frame(s), odometry.csv 2") { try open(fixture.folder) }
        for (text, detail) in [
            (with([lines[1], lines[3], lines[2]]), "line 3: frame 2.0 where 1 was expected"),
            (with([lines[1], lines[2], lines[3].replacingOccurrences(of: ", 000002, ", with: ", 000002, inf, ")]), "line 4: 10 field(s)"),
            (
                with([lines[1], lines[2], lines[3].replacingOccurrences(of: ", 000002, ", with: ", 000002.5, ")]),
                "frame 2.5 where 2 was expected"
            ),
            (with([lines[1], lines[2], "1000.3, 000002, 0, 0, 0, 0, 0, 0, 2"]), "line 4: the quaternion qx, qy, qz, qw has length 2.0"),
            (with([lines[1], lines[2], "1000.3, 000002, nan, 0, 0, 0, 0, 0, 1"]), "line 4: field 3 'nan' is not a finite number"),
            ("x, y, z, qx, qy, qz, qw\n0, 0, 0, 0, 0, 0, 1\n", "the header of an older Stray Scanner"),
            ("timestamp frame x y z qx qy qz qw\n", "line 1: expected the header"),
            (header + "\n", "the header alone, no frame"),
            ("", "empty")
        ] {
            try text.write(toFile: odometry, atomically: true, encoding: .utf8)
            assertCloudError(.badInput, naming: odometry, containing: detail) { try open(fixture.folder) }
        }
        try with(Array(lines[1...])).write(toFile: odometry, atomically: true, encoding: .utf8)
        XCTAssertNoThrow(try readAll(fixture.folder), "the restored export reads")
    }

    func testMissingFilesAndMismatchedFrameCountsAreRefused() throws {
        let fixture = try StrayFixture(in: DatasetFixture.scratch(self))
        let folder = fixture.folder
        for name in ["rgb.mp4", "camera_matrix.csv", "odometry.csv"] {
            try FileManager.default.moveItem(atPath: "\(folder)/\(name)", toPath: "\(folder)/\(name).away")
            assertCloudError(.badInput, naming: "\(folder)/\(name)", containing: "no such file") { try open(folder) }
            try FileManager.default.moveItem(atPath: "\(folder)/\(name).away", toPath: "\(folder)/\(name)")
        }
        // No frame with its depth at all.
        for i in 0..<3 {
            try FileManager.default.moveItem(atPath: "\(folder)/depth/00000\(i).png", toPath: "\(folder)/depth/00000\(i + 5).png")
        }
        assertCloudError(.badInput, naming: folder, containing: "none of odometry.csv's 3 frames has its depth") { try open(folder) }
        for i in 0..<3 {
            try FileManager.default.moveItem(atPath: "\(folder)/depth/00000\(i + 5).png", toPath: "\(folder)/depth/00000\(i).png")
        }
        try FileManager.default.removeItem(atPath: "\(folder)/confidence/000002.png")
        assertCloudError(.badInput, naming: "\(folder)/confidence/000002.png", containing: "the confidence map of frame 000002") {
            try SourceSpec(parsing: "stray:\(folder)").open()
        }
        try FileManager.default.removeItem(atPath: "\(folder)/depth")
        assertCloudError(.badInput, naming: folder, containing: "no depth/ folder") { try open(folder) }
        assertCloudError(.badInput, naming: "\(folder)/nothing", containing: "no such folder") { try open("\(folder)/nothing") }

        // A video of two frames for three depth frames and poses.
        let other = try StrayFixture(in: DatasetFixture.scratch(self))
        let colors = try other.frames.prefix(2).map { try XCTUnwrap(try RGBDFrame(decoding: $0, origin: "frame").color) }
        try StrayFixture.encodeVideo(colors, to: other.folder + "/rgb.mp4")
        assertCloudError(.badInput, naming: other.folder + "/rgb.mp4", containing: "2 frame(s), odometry.csv 3") { try open(other.folder) }
    }

    func testCorruptAndTruncatedVideosAreErrorsNotCrashes() throws {
        let fixture = try StrayFixture(in: DatasetFixture.scratch(self), fastStart: true)
        let video = fixture.folder + "/rgb.mp4"
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: video)))
        // Not an MP4 at all; the index alone; the frames' data cut short (the index, first, still
        // says three frames); the frames' data overwritten.
        try Data("this is no video".utf8).write(to: URL(fileURLWithPath: video))
        assertCloudError(.badInput, naming: video, containing: "cannot read the video: not a readable MP4 file") {
            try open(fixture.folder)
        }
        try Data().write(to: URL(fileURLWithPath: video))
        assertCloudError(.badInput, naming: video, containing: "not a readable MP4 file") { try open(fixture.folder) }
        try Data(bytes.prefix(bytes.count * 2 / 3)).write(to: URL(fileURLWithPath: video))
        assertCloudError(.badInput, naming: video) { try readAll(fixture.folder) }
        var damaged = bytes
        for i in stride(from: bytes.count / 2, to: bytes.count, by: 7) { damaged[i] ^= 0x5A }
        try Data(damaged).write(to: URL(fileURLWithPath: video))
        assertCloudError(.badInput, naming: video) { try readAll(fixture.folder) }
        try Data(bytes).write(to: URL(fileURLWithPath: video))
        XCTAssertNoThrow(try readAll(fixture.folder), "the original video reads")
    }

    func testMalformedNumPyDepthIsRefusedNamingTheFile() throws {
        let fixture = try StrayFixture(in: DatasetFixture.scratch(self), npy: true)
        let depth = fixture.folder + "/depth/000001.npy"
        let samples = [UInt16](repeating: 1500, count: 256 * 192)
        func header(_ dict: String) -> [UInt8] { StrayFixture.npy(samples, width: 256, height: 192, header: dict) }
        let tiny = StrayFixture.npy([1, 2], width: 2, height: 1)
        let good = header("{'descr': '<u2', 'fortran_order': False, 'shape': (192, 256), }")
        for (bytes, detail) in [
            (header("{'descr': '<f4', 'fortran_order': False, 'shape': (192, 256), }"), "holds '<f4'"),
            (header("{'descr': '>u2', 'fortran_order': False, 'shape': (192, 256), }"), "holds '>u2'"),
            (header("{'descr': '<u2', 'fortran_order': True, 'shape': (192, 256), }"), "Fortran order"),
            (header("{'descr': '<u2', 'fortran_order': False, 'shape': (192, 256, 1), }"), "3 dimension(s)"),
            (
                header("{'descr': '<u2', 'fortran_order': False, 'shape': (1920, 256), }"),
                "a 1920x256 uint16 array is 983040 bytes; the file holds 98304"
            ),
            (header("{'descr': '<u2', 'fortran_order': False, 'shape': (99999999999, 256), }"), "expected ')'"),
            (header("{'descr': '<u2', 'fortran_order': False, 'shape': (0, 256), }"), "image size 256x0"),
            (header("{'descr': '<u2', 'descr': '<u2', 'fortran_order': False, 'shape': (192, 256), }"), "names 'descr' twice"),
            (header("{'descr': '<u2', 'fortran_order': False, 'shape': (192, 256), 'x': 1}"), "a value NumPy does not write"),
            (header("{'descr': '<u2', 'fortran_order': False}"), "the keys [\"descr\", \"fortran_order\"]"),
            (Array(good.prefix(good.count - 1)), "the file holds 98303"),
            (Array(good.prefix(9)), "not a NumPy .npy file"),
            (Array(tiny.prefix(8)) + [0xFF, 0xFF] + Array(tiny[10...]), "the header claims 65535 bytes; the file has 122 after the magic"),
            ([0x93] + Array("NUMPY".utf8) + [4, 0, 0, 0], "version 4.0 is not read"),
            (Array(repeating: 0, count: 100), "no \\x93NUMPY magic")
        ] {
            try Data(bytes).write(to: URL(fileURLWithPath: depth))
            assertCloudError(.badInput, naming: depth, containing: detail) { try readAll(fixture.folder) }
        }
        try Data(good).write(to: URL(fileURLWithPath: depth))
        XCTAssertNoThrow(try readAll(fixture.folder), "a well-formed .npy of 1.5 m everywhere reads")
    }
}
