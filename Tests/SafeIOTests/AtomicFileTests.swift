import CloudCore
import Foundation
import XCTest

@testable import SafeIO

#if canImport(Glibc)
import Glibc
#endif

/// Writes never lose data (Docs/reliability.md "Writing outputs"): a destination appears whole or
/// not at all, a device or FIFO is written in place and never replaced, a killed run's
/// temporaries go with the next write, and a set of outputs lands together or not at all.
final class AtomicFileTests: XCTestCase {
    var folder: URL!
    var path: String { folder.path }

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudgen-atomic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func contents(_ name: String) -> String? {
        FileManager.default.contents(atPath: "\(path)/\(name)").map { String(decoding: $0, as: UTF8.self) }
    }

    private func entries() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    private func fileType(_ name: String) -> mode_t {
        var status = stat()
        XCTAssertEqual(lstat("\(path)/\(name)", &status), 0)
        return status.st_mode & S_IFMT
    }

    /// A PID that existed and no longer does: a child that has exited and been reaped.
    private func deadPID() throws -> pid_t {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        return child.processIdentifier
    }

    func testReplacesAnExistingFileWhole() throws {
        try AtomicFile.write(bytes: Array("old".utf8), to: "\(path)/out.txt")
        try AtomicFile.write(bytes: Array("new content".utf8), to: "\(path)/out.txt")
        XCTAssertEqual(contents("out.txt"), "new content")
        XCTAssertEqual(entries(), ["out.txt"], "no temporary stays behind")
    }

    func testAFailingBodyLeavesTheOldFileAndNoTemporary() throws {
        try AtomicFile.write(bytes: Array("old".utf8), to: "\(path)/out.txt")
        XCTAssertThrowsError(
            try AtomicFile.write("\(path)/out.txt") { temporary in
                try Data("half".utf8).write(to: URL(fileURLWithPath: temporary))
                throw CloudError.io("disk full")
            })
        XCTAssertEqual(contents("out.txt"), "old")
        XCTAssertEqual(entries(), ["out.txt"])
    }

    func testAFolderInTheWayIsBadInput() throws {
        try FileManager.default.createDirectory(atPath: "\(path)/out.ply", withIntermediateDirectories: false)
        XCTAssertThrowsError(try AtomicFile.write(bytes: [1], to: "\(path)/out.ply")) { error in
            XCTAssertEqual((error as? CloudError)?.kind, .badInput)
        }
        XCTAssertThrowsError(try AtomicFile.checkWritable("\(path)/out.ply"))
        XCTAssertEqual(entries(), ["out.ply"])
    }

    func testAMissingFolderIsAnIOErrorNamingIt() throws {
        XCTAssertThrowsError(try AtomicFile.write(bytes: [1], to: "\(path)/none/out.ply")) { error in
            XCTAssertEqual((error as? CloudError)?.kind, .deviceOrIO)
            XCTAssertTrue((error as? CloudError)?.message.contains("\(self.path)/none/") == true, "\(error)")
        }
    }

    func testACharacterDeviceIsWrittenInPlaceAndKept() throws {
        // A private /dev/null (major 1, minor 3; Linux packs small numbers as major << 8 | minor):
        // the real one must never be at stake in a test.
        XCTAssertEqual(mknod("\(path)/null", S_IFCHR | 0o666, dev_t(1 << 8 | 3)), 0, "tests run as root")
        try AtomicFile.write(bytes: [UInt8](repeating: 7, count: 100_000), to: "\(path)/null")
        XCTAssertEqual(fileType("null"), S_IFCHR, "the device node is still a device")
        XCTAssertTrue(AtomicFile.isWrittenInPlace("\(path)/null"))
        XCTAssertNoThrow(try AtomicFile.checkWritable("\(path)/null"))
        XCTAssertEqual(entries(), ["null"])
    }

    func testAFIFOIsWrittenInPlaceForItsReader() throws {
        XCTAssertEqual(mkfifo("\(path)/pipe", 0o666), 0)
        let payload = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        final class Received: @unchecked Sendable { var bytes = Data() }
        let received = Received()
        let done = DispatchSemaphore(value: 0)
        let fifo = "\(path)/pipe"
        // A reader that fails would show as EPIPE, not as the test process dying of SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        Thread.detachNewThread {
            if let reader = FileHandle(forReadingAtPath: fifo) {
                received.bytes = reader.readDataToEndOfFile()
            }
            done.signal()
        }
        try AtomicFile.write(bytes: payload, to: fifo)
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual([UInt8](received.bytes), payload, "the reader gets every byte, in order")
        XCTAssertEqual(fileType("pipe"), S_IFIFO, "the FIFO is still a FIFO")
        XCTAssertEqual(entries(), ["pipe"])
    }

    func testASymbolicLinkKeepsPointingAtItsReplacedTarget() throws {
        try AtomicFile.write(bytes: Array("old".utf8), to: "\(path)/real.txt")
        XCTAssertEqual(symlink("real.txt", "\(path)/link.txt"), 0)
        try AtomicFile.write(bytes: Array("new".utf8), to: "\(path)/link.txt")
        XCTAssertEqual(fileType("link.txt"), S_IFLNK)
        XCTAssertEqual(contents("real.txt"), "new")
    }

    func testAStaleTemporaryOfTheSameTargetIsRemovedByTheNextWrite() throws {
        let dead = try deadPID()
        let stale = ".out.ply.tmp-\(dead)-1a2b3c"
        let staleFolder = ".out.ply.partial-\(dead)-4d5e"
        let otherTarget = ".other.ply.tmp-\(dead)-99"
        let live = ".out.ply.tmp-\(getpid())-77"
        let notOurs = ".out.ply.tmp-notapid"
        for name in [stale, otherTarget, live, notOurs] {
            _ = FileManager.default.createFile(atPath: "\(path)/\(name)", contents: Data("x".utf8))
        }
        try FileManager.default.createDirectory(atPath: "\(path)/\(staleFolder)/frames", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: "\(path)/\(staleFolder)/frames/0.depth", contents: Data("x".utf8))
        try AtomicFile.write(bytes: [1, 2, 3], to: "\(path)/out.ply")
        XCTAssertEqual(
            entries(), [live, otherTarget, notOurs, "out.ply"].sorted(),
            "only the dead process's temporaries of out.ply go; a live process's, another target's and other names stay")
    }

    func testTemporaryNamesParseBackToTheirTargetAndProcess() {
        XCTAssertEqual(Temporaries.parse(".scan-01.ply.tmp-1234-ab12")?.name, "scan-01.ply")
        XCTAssertEqual(Temporaries.parse(".scan-01.ply.tmp-1234-ab12")?.pid, 1234)
        XCTAssertEqual(Temporaries.parse(".bundle.partial-77-0f")?.name, "bundle")
        XCTAssertNil(Temporaries.parse("scan.ply.tmp-1234-ab12"), "not hidden")
        XCTAssertNil(Temporaries.parse(".scan.ply.tmp-12x4-ab12"))
        XCTAssertNil(Temporaries.parse(".scan.ply.tmp-1234-"))
        XCTAssertNil(Temporaries.parse(".tmp-1234-ab"))
        XCTAssertNil(Temporaries.parse(".scan.ply.bak-1234-ab"))
    }

    func testASetLandsWholeOrNotAtAll() throws {
        try AtomicFile.write(bytes: Array("old a".utf8), to: "\(path)/a.txt")
        XCTAssertThrowsError(
            try OutputSet.all(subject: "test") {
                try AtomicFile.write(bytes: Array("new a".utf8), to: "\(path)/a.txt")
                try AtomicFile.write(bytes: Array("new b".utf8), to: "\(path)/b.txt")
                XCTAssertEqual(self.contents("a.txt"), "old a", "nothing lands before the set ends")
                XCTAssertNil(self.contents("b.txt"))
                throw CloudError.io("the last file failed")
            })
        XCTAssertEqual(entries(), ["a.txt"])
        XCTAssertEqual(contents("a.txt"), "old a")

        try OutputSet.all(subject: "test") {
            try AtomicFile.write(bytes: Array("new a".utf8), to: "\(path)/a.txt")
            try AtomicFile.write(bytes: Array("new b".utf8), to: "\(path)/b.txt")
        }
        XCTAssertEqual(entries(), ["a.txt", "b.txt"])
        XCTAssertEqual(contents("a.txt"), "new a")
        XCTAssertEqual(contents("b.txt"), "new b")
    }

    func testARenameFailingPartWayPutsTheEarlierOutputsBack() throws {
        try AtomicFile.write(bytes: Array("old a".utf8), to: "\(path)/a.txt")
        XCTAssertThrowsError(
            try OutputSet.all(subject: "test") {
                try AtomicFile.write(bytes: Array("new a".utf8), to: "\(path)/a.txt")
                try AtomicFile.write(bytes: Array("new b".utf8), to: "\(path)/b.txt")
                // A folder that is not empty takes b.txt's place before the renames: its rename fails
                // after a.txt's has succeeded.
                try FileManager.default.createDirectory(atPath: "\(self.path)/b.txt/inside", withIntermediateDirectories: true)
            }
        ) { error in
            XCTAssertEqual((error as? CloudError)?.kind, .deviceOrIO, "\(error)")
        }
        XCTAssertEqual(contents("a.txt"), "old a", "a.txt was put back")
        XCTAssertEqual(entries(), ["a.txt", "b.txt"], "no temporary or backup stays")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: "\(path)/b.txt"), ["inside"])
    }

    func testAStagedFolderInASetLandsWithTheFiles() throws {
        XCTAssertThrowsError(
            try OutputSet.all(subject: "test") {
                let staged = try StagedDirectory("\(path)/export", what: "export")
                try AtomicFile.write(bytes: [1], to: "\(staged.staging.path)/0.png")
                try staged.commit()
                XCTAssertFalse(FileManager.default.fileExists(atPath: "\(self.path)/export"))
                try AtomicFile.write(bytes: [2], to: "\(path)/missing/last.ply")
            })
        XCTAssertEqual(entries(), [], "the folder is gone with the failed set")

        try OutputSet.all(subject: "test") {
            let staged = try StagedDirectory("\(path)/export", what: "export")
            try AtomicFile.write(bytes: [1], to: "\(staged.staging.path)/0.png")
            try staged.commit()
            try AtomicFile.write(bytes: [2], to: "\(path)/last.ply")
        }
        XCTAssertEqual(entries(), ["export", "last.ply"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: "\(path)/export"), ["0.png"])
    }

    func testTheWrittenSizeIsKnownBeforeTheSetLands() throws {
        try OutputSet.all(subject: "test") {
            try AtomicFile.write(bytes: [UInt8](repeating: 0, count: 1234), to: "\(path)/a.bin")
            XCTAssertEqual(AtomicFile.writtenSize("\(path)/a.bin"), 1234)
        }
        XCTAssertEqual(AtomicFile.writtenSize("\(path)/a.bin"), 1234)
    }
}
