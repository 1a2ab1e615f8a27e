import ArgumentParser
import CloudCore
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

    /// Every filter the doors list (`FilterKind.listed`) is a `--filter` entry of capture and of
    /// convert, and every one with a flag of its own (the filters before `--filter`) reaches the
    /// pipeline through it too: a flag whose values the pipeline forgot would fail here.
    func testEveryFilterRowIsAFilterEntryAndItsFlagReachesThePipeline() throws {
        var flagged: [String] = []
        for kind in FilterKind.listed {
            let value = kind.form == nil ? nil : try XCTUnwrap(Self.example[kind.name], "an example value for \(kind.name)")
            var ways = [["--filter", value.map { "\(kind.name)=\($0)" } ?? kind.name]]
            XCTAssertEqual(DeclaredOptions(Capture.self).options[kind.name] != nil, kind.flagged, kind.name)
            if kind.flagged {
                ways.append(["--\(kind.name)"] + (value.map { [$0] } ?? []))
                flagged.append(kind.name)
            }
            for arguments in ways {
                let steps = try FilterOptions.parse(arguments).pipeline(arguments: arguments).steps
                XCTAssertEqual(steps.map(\.filter.name), [kind.name], "\(arguments)")
            }
        }
        XCTAssertEqual(flagged, ["crop", "voxel", "sor", "radius", "normals", "foreground"])
        for command in [Capture.self, Convert.self] as [ParsableCommand.Type] {
            let declared = DeclaredOptions(command).options
            XCTAssertNotNil(declared["filter"], "\(command)")
            for name in flagged { XCTAssertNotNil(declared[name], "\(command) has no --\(name)") }
        }
    }

    /// `--filter` alone keeps its order with no argv scan, and mixes with the flags in argv order.
    func testFilterEntriesRunInTheirOrder() throws {
        let alone = ["--filter", "sor=20,2", "--filter", "voxel=0.01", "--filter", "normals"]
        XCTAssertEqual(
            try FilterOptions.parse(alone).pipeline(arguments: []).steps.map(\.option.flag),
            ["--sor 20,2", "--voxel 0.01", "--normals 0.05"])
        let mixed = ["--voxel", "0.02", "--filter", "sor=20,2", "--crop", "-1,-1,0,1,1,2"]
        XCTAssertEqual(
            try FilterOptions.parse(mixed).pipeline(arguments: mixed).steps.map(\.filter.name), ["voxel", "sor", "crop"])
        assertCloudError(.badInput, naming: "--filter", containing: "is not a filter; use crop, voxel") {
            try FilterOptions.parse(["--filter", "blur=3"]).pipeline(arguments: [])
        }
    }

    private static let example = [
        "crop": "-1,-1,0,1,1,2", "voxel": "0.01", "sor": "20,2", "radius": "0.05,5", "normals": "0.05", "median": "3"
    ]

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
