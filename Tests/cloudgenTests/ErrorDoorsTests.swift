import Foundation
import XCTest

/// One bad value, two doors: the CLI names what is wrong as a flag or a path
/// (`cloudgen: --voxel 0: REASON`), the service as a field or an uploaded part (`voxel=0: REASON`,
/// with `field`, and `part` for a file's content), and the reason between them is the same words.
final class ErrorDoorsTests: XCTestCase {
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

    /// The CLI's one stderr line, without "cloudgen: ", after its exit status was checked.
    private func cliLine(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try CLI.run(arguments, in: scratch, file: file, line: line)
        XCTAssertEqual(result.status, 2, result.stderr, file: file, line: line)
        let text = try XCTUnwrap(result.stderrLines.last { $0.hasPrefix("cloudgen: ") }, result.stderr, file: file, line: line)
        return String(text.dropFirst("cloudgen: ".count))
    }

    /// The problem+json of a refused upload, after its status was checked.
    private func problem(_ curl: [String], file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let (status, body) = try ServeProcess.curl(curl + ["\(server.url)/v1/captures"])
        XCTAssertEqual(status, 422, String(decoding: body, as: UTF8.self), file: file, line: line)
        return ServeProcess.json(body)
    }

    private var frame: (depth: String, color: String, intrinsics: String) {
        (
            sharedData("open3d-rgbd/other_formats/TUM_depth.png"), sharedData("open3d-rgbd/other_formats/TUM_color.png"),
            sharedData("open3d-rgbd/camera_primesense.json")
        )
    }

    private func cliCapture(depth: String, _ extra: [String]) -> [String] {
        [
            "capture", "--source", "rgbd:\(frame.color),\(depth)", "--intrinsics", frame.intrinsics, "--depth-scale", "5000",
            "--ply", scratch.appendingPathComponent("out.ply").path
        ] + extra
    }

    private func upload(depth: String, _ fields: [String]) -> [String] {
        ["-F", "depth=@\(depth)", "-F", "color=@\(frame.color)", "-F", "intrinsics=@\(frame.intrinsics)", "-F", "depth_scale=5000"]
            + fields.flatMap { ["-F", $0] }
    }

    func testAFilterValueIsTheSameRefusalAsAFlagAndAsAField() throws {
        for (flag, value) in [("voxel", "0"), ("sor", "20"), ("crop", "1,2,3"), ("radius", "0.05,2.5")] {
            let cli = try cliLine(cliCapture(depth: frame.depth, ["--\(flag)", value]))
            let http = try problem(upload(depth: frame.depth, ["\(flag)=\(value)"]))
            let cliPrefix = "--\(flag) \(value): "
            let httpPrefix = "\(flag)=\(value): "
            XCTAssertTrue(cli.hasPrefix(cliPrefix), cli)
            let detail = try XCTUnwrap(http["detail"] as? String)
            XCTAssertTrue(detail.hasPrefix(httpPrefix), detail)
            XCTAssertEqual(String(detail.dropFirst(httpPrefix.count)), String(cli.dropFirst(cliPrefix.count)))
            XCTAssertFalse(detail.contains("--"), "the service names a CLI flag: \(detail)")
            XCTAssertEqual(http["field"] as? String, flag)
            XCTAssertNil(http["part"])
        }
    }

    /// A range whose MIN passes its MAX: ArgumentParser's refusal of `--range` gives the service's reason.
    func testAnInvertedRangeIsRefusedForTheSameReasonByBothDoors() throws {
        let cli = try cliLine(cliCapture(depth: frame.depth, ["--range", "5,1"]))
        let http = try problem(upload(depth: frame.depth, ["range=5,1"]))
        let detail = try XCTUnwrap(http["detail"] as? String)
        XCTAssertEqual(http["field"] as? String, "range")
        let httpPrefix = "range '5,1': "
        XCTAssertTrue(detail.hasPrefix(httpPrefix), detail)
        let reason = String(detail.dropFirst(httpPrefix.count))
        XCTAssertTrue(reason.hasPrefix("needs MIN,MAX in metres"), reason)
        XCTAssertTrue(cli.contains("'--range <min,max>': \(reason)"), cli)
        XCTAssertTrue(cli.contains("'5,1'"), cli)
    }

    /// PLY alone in binary_compressed: both doors refuse it, saying which encodings PLY is written in.
    func testACompressedPLYIsRefusedForTheSameReasonByBothDoors() throws {
        let bunny = sharedData("pcl-clouds/bunny.pcd")
        let cli = try cliLine(["convert", bunny, "--ply", "b.ply", "--encoding", "binary_compressed"])
        let (status, body) = try ServeProcess.curl(
            ["-F", "cloud=@\(bunny)", "-F", "format=ply", "-F", "encoding=binary_compressed", "\(server.url)/v1/convert"])
        XCTAssertEqual(status, 400, String(decoding: body, as: UTF8.self))
        let detail = try XCTUnwrap(ServeProcess.json(body)["detail"] as? String)
        XCTAssertEqual(detail, "encoding 'binary_compressed': PLY is written as ascii, binary")
        XCTAssertEqual(cli, "--encoding binary_compressed: PLY is written as ascii, binary")
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.appendingPathComponent("b.ply").path))
    }

    /// A photo takes no depth scale: the CLI says so of `--depth-scale`, the service of `depth_scale`.
    func testAnOptionTheSourceTakesNotIsNamedInEachDoorsWording() throws {
        let photo = sharedData("phone/iphonex-portrait-depth.jpg")
        let cli = try cliLine(["capture", "--source", "photo:\(photo)", "--depth-scale", "1000", "--ply", "out.ply"])
        let http = try problem(["-F", "photo=@\(photo)", "-F", "depth_scale=1000"])
        let detail = try XCTUnwrap(http["detail"] as? String)
        XCTAssertTrue(cli.hasPrefix("--depth-scale does not apply to photo: sources"), cli)
        XCTAssertEqual(detail, "depth_scale" + cli.dropFirst("--depth-scale".count))
    }

    /// A corrupt depth PNG: the CLI names the file by its path, the service by its part, and the
    /// server's own path for the upload never reaches the client.
    func testACorruptUploadedFileIsNamedByItsPathOrByItsPart() throws {
        let png = try Data(contentsOf: URL(fileURLWithPath: frame.depth))
        let truncated = scratch.appendingPathComponent("depth.png")
        try png.prefix(png.count / 2).write(to: truncated)
        let cli = try cliLine(cliCapture(depth: truncated.path, []))
        let http = try problem(upload(depth: truncated.path, []))
        XCTAssertTrue(cli.hasPrefix(truncated.path + ": "), cli)
        let detail = try XCTUnwrap(http["detail"] as? String)
        XCTAssertEqual(detail, "depth: " + cli.dropFirst(truncated.path.count + 2))
        XCTAssertEqual(http["part"] as? String, "depth")
        XCTAssertEqual(http["field"] as? String, "depth")
        XCTAssertFalse(detail.contains(scratch.path), detail)
    }
}
