import CloudCore
import CloudFiles
import CloudPCL
import Foundation
import XCTest

/// `capture --source kinect` end to end without a camera: a recording of a known scene in
/// fakenect's format, played back through libfreenect's own fakenect library (Debian
/// libfreenect-bin, installed by Tools/bootstrap) by the same cloudgen code a real Kinect uses.
final class KinectPlaybackTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = try makeScratchDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
    }

    /// The scene's frames at 30 fps: depth and color stamped 1 ms apart on the camera's 60 MHz
    /// clock, as a Kinect pairs them; all at one playback time so that fakenect does not sleep.
    private func record(frames: Int, extraDepthAfter gap: Double? = nil) throws -> URL {
        let folder = scratch.appendingPathComponent("recording")
        var recording = try FakenectRecording(directory: folder)
        let depth = KinectTestScene.rawDepth()
        let rgb = KinectTestScene.rgb()
        for i in 0..<frames {
            let tick = UInt32(1_000_000 + i * 2_000_000)
            try recording.addDepth(depth, seconds: 1, timestamp: tick)
            try recording.addRGB(rgb, seconds: 1, timestamp: tick + 60_000)
        }
        if let gap {
            try recording.addDepth(depth, seconds: 1 + gap, timestamp: UInt32(1_000_000 + frames * 2_000_000))
        }
        return folder
    }

    private func play(
        _ recording: URL, _ arguments: [String], timeout: Double = 60,
        whileRunning: ((Process) -> Void)? = nil
    ) throws -> CLI.Result {
        let environment = ["FAKENECT_PATH": recording.path, "LD_LIBRARY_PATH": try FakenectRecording.libraryFolder()]
        let (result, timedOut) = try CLI.run(arguments, environment: environment, timeout: timeout, whileRunning: whileRunning)
        XCTAssertFalse(timedOut, "cloudgen did not finish within \(timeout) s under fakenect: \(result.stderr)")
        return result
    }

    func testTwoFramesMatchTheRecordedSceneWithinTheKinectsDepthQuantisation() throws {
        let recording = try record(frames: 2)
        let ply = scratch.appendingPathComponent("scan.ply").path
        let result = try play(recording, ["capture", "--source", "kinect", "--frames", "2", "--ply", ply, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(report?["frames"] as? Int, 2, result.stdout)
        XCTAssertEqual(report?["source"] as? String, "kinect:0")
        // fakenect cannot give the calibration; the defaults are said to be used.
        XCTAssertTrue(result.stderr.contains("using libfreenect's defaults"), result.stderr)

        for index in 0..<2 {
            let path = scratch.appendingPathComponent(String(format: "scan_%03d.ply", index)).path
            try checkAgainstScene(try CloudReader.read(path).cloud, file: path)
        }
    }

    /// Every point must lie on the board or the wall (the cloud is in the RGB camera's frame,
    /// `baseline` right of the IR camera the depth was taken with) within half a raw step of the
    /// Kinect's depth quantisation at its range plus the millimetre truncation, and carry the
    /// color the RGB camera saw there.
    private func checkAgainstScene(_ cloud: PointCloud, file: String) throws {
        let pixels = KinectTestScene.width * KinectTestScene.height
        // Registration moves depth pixels by 5 to about 11 columns; those shifted off the image and a few
        // forward-mapping gaps are lost, nothing more.
        XCTAssertGreaterThan(cloud.count, pixels * 95 / 100, file)
        XCTAssertLessThanOrEqual(cloud.count, pixels, file)
        let colors = try XCTUnwrap(cloud.colors, "\(file) has no colors")
        var offSurface = 0
        var worst = 0.0
        var colorChecked = 0
        var colorWrong = 0
        var surfaces = (board: 0, wall: 0)
        for i in 0..<cloud.count {
            let q = cloud.point(i)
            let p = SIMD3<Double>(Double(q.x) + KinectTestScene.baseline, Double(q.y), Double(q.z))
            let boardZ = KinectTestScene.boardZ + KinectTestScene.boardSlope * p.x
            // Registration rounds to whole pixels: a point of the board's rim may come back up to
            // half a pixel (z / 2f, under 2 mm here) outside its outline.
            let rim = 0.005
            let onBoard =
                (KinectTestScene.boardX.lowerBound - rim...KinectTestScene.boardX.upperBound + rim).contains(p.x)
                && (KinectTestScene.boardY.lowerBound - rim...KinectTestScene.boardY.upperBound + rim).contains(p.y)
                && abs(p.z - boardZ) < abs(p.z - KinectTestScene.wallZ)
            let surfaceZ = onBoard ? boardZ : KinectTestScene.wallZ
            let tolerance = 0.5 * KinectTestScene.quantisation(atMetres: surfaceZ) + 0.002
            let error = abs(p.z - surfaceZ)
            worst = max(worst, error / tolerance)
            if error > tolerance {
                offSurface += 1
                continue
            }
            let surface: KinectTestScene.Surface = onBoard ? .board : .wall
            if onBoard { surfaces.board += 1 } else { surfaces.wall += 1 }
            // Away from stripe edges, where a pixel of registration rounding cannot flip the stripe.
            if KinectTestScene.stripeMargin(p, on: surface) > 0.012 {
                colorChecked += 1
                let expected = KinectTestScene.color(at: p, on: surface)
                let got = SIMD3(colors[3 * i], colors[3 * i + 1], colors[3 * i + 2])
                if got != expected { colorWrong += 1 }
            }
        }
        XCTAssertEqual(offSurface, 0, "\(file): \(offSurface) points off the scene; worst error \(worst) x the quantisation tolerance")
        XCTAssertGreaterThan(surfaces.board, 50_000, "\(file): the board is missing")
        XCTAssertGreaterThan(surfaces.wall, 50_000, "\(file): the wall is missing")
        XCTAssertGreaterThan(colorChecked, pixels / 2)
        XCTAssertLessThan(
            colorWrong, colorChecked / 1000,
            "\(file): \(colorWrong) of \(colorChecked) points have another surface's color (registration off?)")
    }

    /// More frames asked for than the recording holds: fakenect's library stops delivering, just as
    /// an unplugged camera does. The frames before are written, the command fails with a message.
    func testACameraThatStopsMidCaptureKeepsTheFramesSoFar() throws {
        let recording = try record(frames: 2)
        let ply = scratch.appendingPathComponent("scan.ply").path
        let result = try play(recording, ["capture", "--source", "kinect", "--frames", "4", "--ply", ply])
        XCTAssertEqual(result.status, 3, result.stderr)
        XCTAssertTrue(
            result.stderr.contains(
                "kinect:0: the fakenect recording \(recording.path) has no more frames; the 2 frames captured before were written"),
            result.stderr)
        XCTAssertEqual(result.stderr.components(separatedBy: "has no more frames").count, 2, "the cause is said once: \(result.stderr)")
        // Both complete (the reader checks the size against the header), nothing else left behind.
        XCTAssertEqual(filesIn(scratch).filter { $0 != "recording" }, ["scan_000.ply", "scan_001.ply"])
        for name in ["scan_000.ply", "scan_001.ply"] {
            XCTAssertGreaterThan(try CloudReader.read(scratch.appendingPathComponent(name).path).cloud.count, 290_000)
        }
    }

    /// Ctrl-C while the camera is between frames (fakenect sleeping out a recorded 60 s gap): the
    /// capture stops at once, writes the frames it has completely, and succeeds.
    func testCtrlCStopsCleanlyAndWritesWhatWasCaptured() throws {
        let recording = try record(frames: 2, extraDepthAfter: 60)
        let ply = scratch.appendingPathComponent("scan.ply").path
        let second = scratch.appendingPathComponent("scan_001.ply").path
        var sawSecond = false
        let result = try play(recording, ["capture", "--source", "kinect", "--frames", "5", "--ply", ply], timeout: 40) { process in
            // The second file is staged (under its temporary name until the capture ends) once
            // both frames were written; then interrupt.
            for _ in 0..<300 where process.isRunning {
                if filesIn(self.scratch).contains(where: { $0.hasPrefix(".scan_001.ply.tmp-") }) {
                    sawSecond = true
                    break
                }
                usleep(100_000)
            }
            process.interrupt()
        }
        XCTAssertTrue(sawSecond, "the second frame was never written: \(result.stderr)")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("kinect:0: interrupted; writing the 2 frames captured"), result.stderr)
        XCTAssertEqual(filesIn(scratch).filter { $0 != "recording" }, ["scan_000.ply", "scan_001.ply"])
        XCTAssertGreaterThan(try CloudReader.read(second).cloud.count, 290_000)
    }
}
