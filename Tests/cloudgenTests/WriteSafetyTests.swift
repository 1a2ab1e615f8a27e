import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Writes never lose data, seen from outside (Docs/reliability.md "Writing outputs"): a signal
/// in the middle of a write, a `kill -9` and the next run, outputs that are devices and pipes.
final class WriteSafetyTests: XCTestCase {
    var dir: URL!
    var tmp: URL!

    override func setUpWithError() throws {
        dir = try makeScratchDirectory()
        tmp = dir.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        try Data(BadInputCorpus.cloud).write(to: dir.appendingPathComponent("in.ply"))
        try Data(BadInputCorpus.precious).write(to: dir.appendingPathComponent("keep.pcd"))
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    private func entries(_ folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    /// Starts `convert in.ply --pcd keep.pcd --ply fifo`: the PCD is staged, the PLY waits for a
    /// reader of the FIFO that never comes; `whileWaiting` runs once both temporaries exist.
    private func convertIntoUnreadFIFO(whileWaiting: @escaping (pid_t) -> Void) throws -> CLI.Result {
        XCTAssertEqual(mkfifo(dir.appendingPathComponent("fifo").path, 0o666), 0)
        let (result, timedOut) = try CLI.run(
            ["convert", "\(dir.path)/in.ply", "--pcd", "\(dir.path)/keep.pcd", "--ply", "\(dir.path)/fifo"],
            in: dir, environment: ["TMPDIR": tmp.path], timeout: 60
        ) { process in
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                let staged =
                    self.entries(self.dir).contains { $0.hasPrefix(".keep.pcd.tmp-") }
                    && self.entries(self.tmp).contains { $0.hasPrefix(".fifo.tmp-") }
                if staged { break }
                usleep(20_000)
            }
            whileWaiting(process.processIdentifier)
        }
        XCTAssertFalse(timedOut)
        return result
    }

    func testASignalWhileWritingRemovesEveryTemporaryAndExits3() throws {
        for (signal, name) in [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT"), (SIGHUP, "SIGHUP")] {
            try? FileManager.default.removeItem(at: dir.appendingPathComponent("fifo"))
            let result = try convertIntoUnreadFIFO { kill($0, signal) }
            XCTAssertEqual(result.status, 3, "\(name): \(result.stderr)")
            XCTAssertEqual(result.stderrLines.count, 1, result.stderr)
            XCTAssertTrue(result.stderr.hasPrefix("cloudgen: "), result.stderr)
            XCTAssertTrue(result.stderr.contains("\(dir.path)/fifo") && result.stderr.contains("interrupted by \(name)"), result.stderr)
            XCTAssertEqual(entries(dir), ["fifo", "in.ply", "keep.pcd", "tmp"], "\(name): no temporary left beside the outputs")
            XCTAssertEqual(entries(tmp), [], "\(name): no temporary left in TMPDIR")
            XCTAssertEqual(
                FileManager.default.contents(atPath: dir.appendingPathComponent("keep.pcd").path).map { [UInt8]($0) },
                BadInputCorpus.precious, "\(name): the existing PCD is untouched")
        }
    }

    func testASignalMidSequenceRemovesStagedFilesAndFolders() throws {
        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: false)
        let (result, timedOut) = try CLI.run(
            [
                "capture", "--source", "synthetic:depth=64x48,color=64x48,frames=5000", "--frames", "5000",
                "--ply", "s.ply", "--bundle", "b", "--rgbd", "r"
            ],
            in: out, environment: [:], timeout: 120
        ) { process in
            // Once a few frames are staged beside the staged bundle and export folders.
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline && self.entries(out).filter({ $0.hasPrefix(".s_") }).count < 3 { usleep(20_000) }
            XCTAssertTrue(self.entries(out).contains { $0.hasPrefix(".b.partial-") }, "\(self.entries(out))")
            XCTAssertTrue(self.entries(out).contains { $0.hasPrefix(".r.partial-") })
            kill(process.processIdentifier, SIGTERM)
        }
        XCTAssertFalse(timedOut)
        XCTAssertEqual(result.status, 3, result.stderr)
        XCTAssertEqual(result.stderrLines, ["cloudgen: s.ply, r, b: interrupted by SIGTERM while writing; nothing was written"])
        XCTAssertEqual(entries(out), [], "no numbered file, staged folder or temporary stays")
    }

    func testTheNextWriteRemovesWhatAKilledRunLeft() throws {
        let result = try convertIntoUnreadFIFO { kill($0, SIGKILL) }
        XCTAssertEqual(result.status, SIGKILL, "Process reports the signal that ended cloudgen")
        XCTAssertTrue(entries(dir).contains { $0.hasPrefix(".keep.pcd.tmp-") }, "kill -9 leaves its temporary: \(entries(dir))")
        XCTAssertTrue(entries(tmp).contains { $0.hasPrefix(".fifo.tmp-") })

        let again = try CLI.run(["convert", "\(dir.path)/in.ply", "--pcd", "\(dir.path)/keep.pcd"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(entries(dir), ["fifo", "in.ply", "keep.pcd", "tmp"], "the stale temporary of keep.pcd is gone")
        XCTAssertNotEqual(
            FileManager.default.contents(atPath: dir.appendingPathComponent("keep.pcd").path).map { [UInt8]($0) },
            BadInputCorpus.precious)

        // The FIFO's temporary goes with the next write to the FIFO, which now has a reader.
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/sh")
        reader.arguments = ["-c", "cat '\(dir.path)/fifo' > /dev/null"]
        try reader.run()
        let (piped, timedOut) = try CLI.run(
            ["convert", "\(dir.path)/in.ply", "--ply", "\(dir.path)/fifo"], in: dir,
            environment: ["TMPDIR": tmp.path], timeout: 60)
        reader.waitUntilExit()
        XCTAssertFalse(timedOut)
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(entries(tmp), [])
    }

    func testACloudOnStandardOutputComesAloneThroughThePipe() throws {
        let file = try CLI.run(["convert", "\(dir.path)/in.ply", "--ply", "\(dir.path)/out.ply", "--encoding", "ascii"])
        XCTAssertEqual(file.status, 0, file.stderr)
        let piped = try CLI.run(["convert", "\(dir.path)/in.ply", "--ply", "/dev/stdout", "--encoding", "ascii"])
        XCTAssertEqual(piped.status, 0, piped.stderr)
        let written = try String(contentsOf: dir.appendingPathComponent("out.ply"), encoding: .utf8)
        XCTAssertEqual(piped.stdout, written, "stdout carries exactly the file")
        XCTAssertTrue(piped.stderr.contains("wrote /dev/stdout (PLY ascii, 20000 points)"), "the report moves to stderr: \(piped.stderr)")

        let capture = try CLI.run(["capture", "--source", BadInputCorpus.smallCamera, "--pcd", "/dev/stdout", "--encoding", "ascii"])
        XCTAssertEqual(capture.status, 0, capture.stderr)
        XCTAssertTrue(capture.stdout.hasPrefix("# .PCD v0.7"), String(capture.stdout.prefix(80)))
        XCTAssertFalse(capture.stdout.contains("points from"))
        XCTAssertTrue(capture.stderr.contains("points from synthetic"), capture.stderr)
        XCTAssertEqual(entries(dir), ["in.ply", "keep.pcd", "out.ply", "tmp"])
    }

    func testADeviceNodeIsWrittenThroughAndKept() throws {
        // A private null device (1, 3), never the real /dev/null.
        let device = dir.appendingPathComponent("null").path
        XCTAssertEqual(mknod(device, S_IFCHR | 0o666, dev_t(1 << 8 | 3)), 0, "tests run as root")
        for arguments in [
            ["convert", "\(dir.path)/in.ply", "--ply", device, "--pcd", "\(dir.path)/both.pcd"],
            ["render", "\(dir.path)/in.ply", "--out", device, "--size", "64x48"],
            ["capture", "--source", BadInputCorpus.smallCamera, "--ply", device, "--preview", device]
        ] {
            let result = try CLI.run(arguments)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
            var status = stat()
            XCTAssertEqual(lstat(device, &status), 0)
            XCTAssertEqual(status.st_mode & S_IFMT, S_IFCHR, "\(arguments): the device node is still a device")
        }
        XCTAssertEqual(entries(dir), ["both.pcd", "in.ply", "keep.pcd", "null", "tmp"])
    }
}
