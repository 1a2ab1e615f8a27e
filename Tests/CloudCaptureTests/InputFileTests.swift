import CloudCapture
import CloudCore
import CloudImages
import Foundation
import SafeIO
import XCTest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One helper opens every input file, so a failure means the same exit status whichever reader
/// met it: the wrong thing named is bad input (exit 2), a system that cannot deliver it is I/O (3).
final class InputFileTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudgen-input-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func assertError<T>(
        _ kind: CloudError.Kind, _ prefix: String, _ detail: String, line: UInt = #line,
        _ body: () throws -> T
    ) {
        XCTAssertThrowsError(try body(), line: line) { error in
            guard let e = error as? CloudError else { return XCTFail("\(error) is not a CloudError", line: line) }
            XCTAssertEqual(e.kind, kind, e.message, line: line)
            XCTAssertEqual(e.exitStatus, kind == .badInput ? 2 : 3, line: line)
            XCTAssertTrue(e.message.hasPrefix(prefix + ": "), "'\(e.message)' does not start with \(prefix)", line: line)
            XCTAssertTrue(e.message.contains(detail), "'\(e.message)' lacks '\(detail)'", line: line)
            XCTAssertFalse(e.message.contains("\n"), line: line)
        }
    }

    func testReadsTheWholeFileAndPieces() throws {
        let path = folder.appendingPathComponent("f.bin").path
        try Data((0..<200).map { UInt8($0) }).write(to: URL(fileURLWithPath: path))
        let file = try InputFile(path, limit: 200)
        XCTAssertEqual(file.size, 200)
        XCTAssertEqual(try file.readAll(), (0..<200).map { UInt8($0) })
        XCTAssertEqual(try file.read(at: 190, count: 20), (190..<200).map { UInt8($0) })
        XCTAssertEqual(try file.read(at: 300, count: 4), [])
        XCTAssertEqual(try InputFile.readAll(path), (0..<200).map { UInt8($0) })
    }

    func testMissingFolderAndSpecialFilesAreBadInput() throws {
        let missing = folder.appendingPathComponent("absent.png").path
        assertError(.badInput, missing, "no such file (the thing)") { try InputFile(missing, role: "the thing") }
        let underFile = folder.appendingPathComponent("absent/inner.png").path
        assertError(.badInput, underFile, "no such file") { try InputFile(underFile) }
        assertError(.badInput, folder.path, "is a folder, not a file") { try InputFile(folder.path) }
        // A FIFO is refused at once (opening it must not wait for a writer).
        let fifo = folder.appendingPathComponent("pipe").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        assertError(.badInput, fifo, "not a regular file") { try InputFile(fifo) }
        assertError(.badInput, "/dev/null", "not a regular file") { try InputFile("/dev/null") }
    }

    func testLargerThanTheLimitIsRefusedBeforeReading() throws {
        let path = folder.appendingPathComponent("big.json").path
        try Data(count: 1001).write(to: URL(fileURLWithPath: path))
        assertError(.badInput, path, "1001 bytes is too large for the manifest (at most 1000)") {
            try InputFile(path, role: "the manifest", limit: 1000)
        }
        XCTAssertEqual(try InputFile(path, limit: 1001).size, 1001)
    }

    /// Tests run as root, where chmod 000 does not stop reading: the mapping from errno is
    /// checked directly. Only a missing path or a folder is the user's mistake.
    func testErrnoMapping() {
        let p = "/data/x.png"
        for code in [ENOENT, ENOTDIR] {
            XCTAssertEqual(InputFile.error(errno: code, path: p, doing: "cannot open"), .badInput(.file(p), "no such file"))
        }
        XCTAssertEqual(
            InputFile.error(errno: EISDIR, path: p, role: "the image", doing: "cannot open"),
            .badInput(.file(p), "is a folder, not a file (the image)"))
        XCTAssertEqual(InputFile.error(errno: EACCES, path: p, doing: "cannot open"), .io(.file(p), "cannot open: Permission denied"))
        XCTAssertEqual(InputFile.error(errno: EIO, path: p, doing: "cannot read"), .io(.file(p), "cannot read: Input/output error"))
        for code in [EPERM, EMFILE, ENFILE, ENOMEM, EOVERFLOW] {
            XCTAssertEqual(InputFile.error(errno: code, path: p, doing: "cannot open").kind, .deviceOrIO, "errno \(code)")
        }
    }

    /// Where permissions do apply (not root), an unreadable file is I/O, exit 3.
    func testUnreadableFile() throws {
        let path = folder.appendingPathComponent("locked.png").path
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(chmod(path, 0), 0)
        defer { chmod(path, 0o600) }
        if geteuid() == 0 {
            XCTAssertEqual(try InputFile.readAll(path), [1, 2, 3], "root reads any file")
        } else {
            assertError(.deviceOrIO, path, "cannot open: Permission denied") { try InputFile(path) }
        }
    }

    /// Every reader of input files says the same thing about the same problem.
    func testEveryReaderMapsTheSameWay() throws {
        let missing = folder.appendingPathComponent("absent").path
        let readers: [(String, (String) throws -> Any)] = [
            ("image", { try ImageFile.read($0) }),
            ("intrinsics", { try IntrinsicsFile.read($0) }),
            ("trajectory", { try TrajectoryLog.read($0) })
        ]
        for (name, read) in readers {
            assertError(.badInput, missing, "no such file") { try read(missing) }
            assertError(.badInput, folder.path, "is a folder, not a file") { try read(folder.path) }
            _ = name
        }
    }
}
