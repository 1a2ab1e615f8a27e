import CloudPCL
import SharedTestData
import XCTest

@testable import cloudgen

/// The filter flags' order on a command line, which ArgumentParser does not keep between flags.
final class FilterFlagsTests: XCTestCase {
    func testOrderFollowsTheCommandLineAcrossDifferentFlags() throws {
        let arguments = [
            "convert", "in.pcd", "--voxel", "0.01", "--pcd", "out.pcd", "--sor=20,2", "--foreground",
            "--crop", "-1,-1,0,1,1,2", "--voxel=0.02", "--organized", "--radius", "0.05,5"
        ]
        let steps = try FilterFlags.steps(
            arguments: arguments,
            values: [
                "--voxel": ["0.01", "0.02"], "--sor": ["20,2"], "--crop": ["-1,-1,0,1,1,2"],
                "--radius": ["0.05,5"], "--range": []
            ],
            bare: ["--foreground"])
        XCTAssertEqual(
            steps.map(\.option.flag),
            [
                "--voxel 0.01", "--sor 20,2", "--foreground", "--crop -1,-1,0,1,1,2",
                "--voxel 0.02", "--radius 0.05,5"
            ])
        XCTAssertEqual(steps[3].filter, .cropBox(min: SIMD3(-1, -1, 0), max: SIMD3(1, 1, 2)))
    }

    func testOrderScanSkipsValuesAndStopsAtDoubleDash() {
        // "--crop"'s value looks like a flag name; after "--" everything is a positional argument.
        let order = FilterFlags.order(
            of: ["--crop", "--voxel", "--sor", "5,1", "--", "--voxel", "0.1"],
            valued: ["--crop", "--voxel", "--sor"], bare: ["--foreground"])
        XCTAssertEqual(order, ["--crop", "--sor"])
    }

    func testValuesTheScanCannotPlaceAreRefused() {
        assertCloudError(.badInput, naming: "--voxel", containing: "cannot tell where") {
            try FilterFlags.steps(arguments: ["--sor", "5,1"], values: ["--voxel": ["0.01"], "--sor": ["5,1"]], bare: [])
        }
    }
}
