import Foundation
import XCTest

/// `rgbd:COLOR,DEPTH` where the folder holding the images has commas (and a space, and letters
/// beyond ASCII) in its name: the spec splits at the one comma whose two sides are existing files,
/// and the cloud is the same as from the images' own paths.
final class CommaPathTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = try makeScratchDirectory()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: scratch)
    }

    private let intrinsics = sharedData("open3d-rgbd/camera_primesense.json")

    private func capture(color: String, depth: String, to name: String) throws -> CLI.Result {
        try CLI.run(
            [
                "capture", "--source", "rgbd:\(color),\(depth)", "--intrinsics", intrinsics, "--depth-scale", "5000",
                "--ply", scratch.appendingPathComponent(name).path
            ], in: scratch)
    }

    func testImagesInAFolderWithCommasAreCapturedAsFromTheirOwnPaths() throws {
        let folder = scratch.appendingPathComponent("a,b, c ünï")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let color = sharedData("open3d-rgbd/other_formats/TUM_color.png")
        let depth = sharedData("open3d-rgbd/other_formats/TUM_depth.png")
        let copies = (color: folder.appendingPathComponent("c,1.png").path, depth: folder.appendingPathComponent("d,2.png").path)
        try FileManager.default.copyItem(atPath: color, toPath: copies.color)
        try FileManager.default.copyItem(atPath: depth, toPath: copies.depth)

        let reference = try capture(color: color, depth: depth, to: "reference.ply")
        XCTAssertEqual(reference.status, 0, reference.stderr)
        let copied = try capture(color: copies.color, depth: copies.depth, to: "copied.ply")
        XCTAssertEqual(copied.status, 0, copied.stderr)
        let expected = try Data(contentsOf: scratch.appendingPathComponent("reference.ply"))
        XCTAssertGreaterThan(expected.count, 100_000)
        XCTAssertEqual(try Data(contentsOf: scratch.appendingPathComponent("copied.ply")), expected)

        // Depth alone from the comma folder: the empty COLOR before the first comma.
        let depthAlone = try capture(color: "", depth: copies.depth, to: "depth.ply")
        XCTAssertEqual(depthAlone.status, 0, depthAlone.stderr)
    }

    /// Commas that no split resolves into two existing files: exit 2, saying why.
    func testASpecNoCommaSplitsIntoTwoFilesIsRefused() throws {
        let result = try capture(color: "/nowhere/a,b.png", depth: "/nowhere/c.png", to: "out.ply")
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertEqual(result.stderrLines.count, 1, result.stderr)
        XCTAssertTrue(
            result.stderr.contains("no comma splits it into two existing image files"), result.stderr)
    }
}
