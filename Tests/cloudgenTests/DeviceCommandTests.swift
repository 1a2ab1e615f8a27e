import CloudCore
import CloudFiles
import CloudPCL
import Foundation
import XCTest

/// Devices on a machine without a camera (CI, this container): discovery lists nothing and
/// succeeds; capturing from a camera that is not there fails with exit 3 and leaves no file.
final class DeviceCommandTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = try makeScratchDirectory()
        // These tests describe a machine without a depth camera; with one attached they do not apply.
        let listed = try bounded(["devices", "--json"])
        let devices = (try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])?["devices"] as? [Any]
        XCTAssertEqual(devices?.count, 0, "a depth camera is attached; these tests need a machine without one: \(listed.stdout)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
    }

    /// Runs cloudgen with a time limit: these commands open device libraries, whose waits must
    /// fail the test rather than hang the suite.
    private func bounded(
        _ arguments: [String], in directory: URL? = nil, timeout: Double = 60,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> CLI.Result {
        let (result, timedOut) = try CLI.run(arguments, in: directory, environment: [:], timeout: timeout)
        XCTAssertFalse(
            timedOut, "cloudgen \(arguments.joined(separator: " ")) did not finish within \(timeout) s: \(result.stderr)",
            file: file, line: line)
        return result
    }

    func testDevicesJSONIsOneObjectWithAnEmptyList() throws {
        let result = try bounded(["devices", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["devices", "usbDevices"])
        XCTAssertEqual((object["devices"] as? [Any])?.count, 0)
        XCTAssertNotNil(object["usbDevices"] as? Int)
        let plain = try bounded(["devices"])
        XCTAssertEqual(plain.status, 0)
        XCTAssertTrue(plain.stdout.hasPrefix("no depth camera found"), plain.stdout)
    }

    private func assertNoCamera(_ arguments: [String], says expected: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let ply = scratch.appendingPathComponent("scan.ply").path
        let result = try bounded(["capture"] + arguments + ["--ply", ply], in: scratch, file: file, line: line)
        XCTAssertEqual(result.status, 3, result.stderr, file: file, line: line)
        XCTAssertEqual(result.stderrLines, ["cloudgen: " + expected], file: file, line: line)
        XCTAssertEqual(filesIn(scratch), [], "a failed capture leaves no file", file: file, line: line)
    }

    func testCaptureFromAbsentCamerasExitsThreeWithoutAFile() throws {
        try assertNoCamera(["--source", "kinect"], says: "kinect:0: no Kinect is attached")
        try assertNoCamera(["--source", "kinect:2"], says: "kinect:2: no Kinect is attached")
        try assertNoCamera(
            ["--source", "openni2"], says: "openni2: no OpenNI2 device is attached (DeviceOpen using default: no devices found)")
        try assertNoCamera([], says: "no depth camera found; use --source synthetic to capture from the built-in simulated camera")
    }

    func testMissingAndCorruptRecordingsAreBadInput() throws {
        let missing = scratch.appendingPathComponent("missing.oni").path
        var result = try bounded(["capture", "--source", "openni2:\(missing)", "--ply", scratch.appendingPathComponent("a.ply").path])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stderrLines, ["cloudgen: \(missing): no such file (expected an OpenNI2 .oni recording)"])

        let corrupt = scratch.appendingPathComponent("corrupt.oni")
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 37) }).write(to: corrupt)
        result = try bounded(["capture", "--source", "openni2:\(corrupt.path)", "--ply", scratch.appendingPathComponent("a.ply").path])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertEqual(result.stderrLines.count, 1, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("cloudgen: \(corrupt.path): not a readable OpenNI2 recording ("), result.stderr)
        XCTAssertEqual(filesIn(scratch), ["corrupt.oni"])
    }

    func testDurationMustBePositive() throws {
        for bad in ["0", "-1", "nan"] {
            let result = try CLI.run(["capture", "--source", "synthetic", "--duration=\(bad)"])
            XCTAssertEqual(result.status, 2, bad)
            XCTAssertTrue(result.stderr.contains("--duration must be a positive number of seconds"), result.stderr)
        }
    }

    /// `--duration` without `--frames` takes every frame until the time is up; a finite source
    /// that ends first simply ends.
    func testDurationWithoutFramesTakesWhatTheSourceHas() throws {
        let ply = scratch.appendingPathComponent("s.ply").path
        let result = try CLI.run([
            "capture", "--source", "synthetic:path=orbit,frames=3,depth=160x120,color=320x240", "--duration", "600", "--ply", ply
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(filesIn(scratch), ["s_000.ply", "s_001.ply", "s_002.ply"])
    }

    /// `--duration` ends a capture from a source with more frames than fit in the time: the frames
    /// taken by then are all written, complete, and the command succeeds. 5000 frames, because a
    /// debug build already writes about 160 of these small frames a second and a release build more.
    func testDurationStopsALongCapture() throws {
        let ply = scratch.appendingPathComponent("d.ply").path
        let result = try bounded(
            [
                "capture", "--source", "synthetic:path=orbit,frames=5000,depth=64x48,color=64x48",
                "--duration", "1", "--ply", ply
            ], in: scratch)
        XCTAssertEqual(result.status, 0, result.stderr)
        let written = filesIn(scratch)
        XCTAssertFalse(written.isEmpty, "no frame written")
        XCTAssertLessThan(written.count, 5000, "--duration 1 did not stop the capture")
        // Numbered from 0 without gaps, and each one reads back whole (the reader checks the size against the header).
        // (A release build writes over a thousand in the second, d_1000.ply sorting before d_101.ply.)
        XCTAssertEqual(Set(written), Set((0..<written.count).map { String(format: "d_%03d.ply", $0) }))
        for name in written {
            XCTAssertGreaterThan(try CloudReader.read(scratch.appendingPathComponent(name).path).cloud.count, 0, name)
        }
    }
}
