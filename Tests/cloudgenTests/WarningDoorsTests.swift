import Foundation
import XCTest

/// One warning, two doors: the CLI prints it on stderr with flags and paths
/// (`cloudgen: warning: rgbd:COLOR,DEPTH: ...; pass --depth-scale S ...`), the service keeps it
/// in the capture's document with fields and part names (`rgbd:color,depth: ...; pass
/// depth_scale=S ...`), and the words between them are the same.
final class WarningDoorsTests: XCTestCase {
    private var scratch: URL!
    private var server: ServeProcess!

    override func setUpWithError() throws {
        scratch = try makeScratchDirectory()
        server = try ServeProcess(data: scratch.appendingPathComponent("data"))
    }

    override func tearDown() {
        server = nil
        try? FileManager.default.removeItem(at: scratch)
    }

    private var frame: (depth: String, color: String, intrinsics: String) {
        (
            sharedData("open3d-rgbd/other_formats/TUM_depth.png"), sharedData("open3d-rgbd/other_formats/TUM_color.png"),
            sharedData("open3d-rgbd/camera_primesense.json")
        )
    }

    /// The CLI's warnings (without "cloudgen: warning: ") and its `--json` report.
    private func cli(_ extra: [String], file: StaticString = #filePath, line: UInt = #line) throws -> (
        warnings: [String], report: [String: Any]
    ) {
        let result = try CLI.run(
            [
                "capture", "--source", "rgbd:\(frame.color),\(frame.depth)", "--intrinsics", frame.intrinsics, "--json",
                "--ply", scratch.appendingPathComponent("out.ply").path
            ] + extra, in: scratch, file: file, line: line)
        XCTAssertEqual(result.status, 0, result.stderr, file: file, line: line)
        let prefix = "cloudgen: warning: "
        return (
            result.stderrLines.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) },
            ServeProcess.json(Data(result.stdout.utf8))
        )
    }

    /// The stored capture's document for an upload of the same frame, answered and read back.
    private func http(_ fields: [String], file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let parts = ["-F", "depth=@\(frame.depth)", "-F", "color=@\(frame.color)", "-F", "intrinsics=@\(frame.intrinsics)"]
        let (status, body) = try ServeProcess.curl(parts + fields.flatMap { ["-F", $0] } + ["\(server.url)/v1/captures"])
        XCTAssertEqual(status, 201, String(decoding: body, as: UTF8.self), file: file, line: line)
        let answered = ServeProcess.json(body)
        let id = try XCTUnwrap(answered["id"] as? String, file: file, line: line)
        // The stored report reads back as it was answered.
        let (_, stored) = try ServeProcess.curl(["\(server.url)/v1/captures/\(id)"])
        XCTAssertEqual(ServeProcess.json(stored)["warnings"] as? [String], answered["warnings"] as? [String], file: file, line: line)
        XCTAssertFalse(
            String(decoding: stored, as: UTF8.self).contains(scratch.path), "the document names a server path", file: file, line: line)
        return answered
    }

    func testAnAssumedDepthScaleIsNamedByPathsAndFlagsOnTheCLIAndByPartsAndFieldsOverHTTP() throws {
        let reason = "depth scale assumed to be 1000 units per metre (millimetres); pass %@ if the depth image uses other units"
        let (warnings, _) = try cli([])
        XCTAssertEqual(warnings, ["rgbd:\(frame.color),\(frame.depth): " + String(format: reason, "--depth-scale S")])
        let document = try http([])
        XCTAssertEqual(document["warnings"] as? [String], ["rgbd:color,depth: " + String(format: reason, "depth_scale=S")])
    }

    /// The pipeline's and the filters' warnings, and the filters' arguments, each door in its words.
    func testARangeAndAGridDroppedAreWarnedAboutWithTheOptionsAsGiven() throws {
        let (warnings, report) = try cli(["--depth-scale", "5000", "--range", "0.3,2", "--organized", "--voxel", "0.02"])
        let document = try http(["depth_scale=5000", "range=0.3,2", "organized=true", "voxel=0.02"])
        let served = try XCTUnwrap(document["warnings"] as? [String])
        let grid = "drops the organized grid (voxel centroids have no pixel); the cloud is unorganized from here on"
        XCTAssertTrue(warnings.contains("--voxel 0.02 " + grid), "\(warnings)")
        XCTAssertTrue(served.contains("voxel=0.02 " + grid), "\(served)")
        let dropped = try XCTUnwrap(warnings.first { $0.hasPrefix("--range 0.3,2 dropped ") }, "\(warnings)")
        XCTAssertTrue(served.contains("range=0.3,2" + dropped.dropFirst("--range 0.3,2".count)), "\(served)")
        XCTAssertEqual(served.count, warnings.count, "\(served) against \(warnings)")
        XCTAssertFalse(served.contains { $0.contains("--") }, "a warning names a CLI flag: \(served)")
        let arguments = { (report: [String: Any]) in (report["filters"] as? [[String: Any]])?.map { $0["argument"] as? String } }
        XCTAssertEqual(arguments(report), ["--voxel 0.02"])
        XCTAssertEqual(arguments(document), ["voxel=0.02"])
    }
}
