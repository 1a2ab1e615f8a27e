import CloudCore
import XCTest

/// An error keeps its subject and reason apart; the CLI's line puts them together with options as
/// flags, and another wording of options changes only the options.
final class CloudErrorTests: XCTestCase {
    func testTheCLILineIsSubjectThenReasonWithOptionsAsFlags() {
        let voxel = CloudError.badInput(.option("voxel", "0"), "the leaf must be positive")
        XCTAssertEqual(voxel.message, "--voxel 0: the leaf must be positive")
        let fuse = CloudError.badInput(.source("synthetic"), "\(switch: "fuse") needs a posed sequence; pass \(option: "depth-scale", "S")")
        XCTAssertEqual(fuse.message, "synthetic: --fuse needs a posed sequence; pass --depth-scale S")
        XCTAssertEqual(CloudError.badInput("plain text, no subject").message, "plain text, no subject")
        XCTAssertEqual(CloudError.badInput(.part("depth", within: ": depth XMP"), "broken").message, "depth: depth XMP: broken")
    }

    func testAnotherWordingChangesOnlyTheOptions() {
        let error = CloudError.badInput(.option("depth-scale", "0"), "with \(switch: "fuse") and \(option: "frame", "world"), not \(7)")
        let words = error.rendered { option in option.isSwitch ? "\(option.name)=true" : "\(option.name)=\(option.value ?? "")" }
        XCTAssertEqual(words, "depth-scale=0: with fuse=true and frame=world, not 7")
        XCTAssertEqual(error.reason.text, "with --fuse and --frame world, not 7")
    }

    func testExitStatusFollowsTheKind() {
        XCTAssertEqual(CloudError.badInput("x").exitStatus, 2)
        XCTAssertEqual(CloudError.io("x").exitStatus, 3)
        // A budget refusal exits as bad input, as it always has: the input asks for too much.
        XCTAssertEqual(CloudError(.budget, subject: .file("d.png"), "needs about 9 GiB").exitStatus, 2)
    }

    func testASubjectMovesFromARootByItsPathAlone() {
        XCTAssertEqual(
            CloudError.Subject.file("/up/x/unpacked/seq/depth/1.png").moved(from: "/up/x/unpacked/seq", to: "bundle"),
            .file("bundle/depth/1.png"))
        XCTAssertEqual(CloudError.Subject.file("/up/x/unpacked/seq").moved(from: "/up/x/unpacked/seq", to: "bundle"), .file("bundle"))
        XCTAssertEqual(
            CloudError.Subject.source("tum:/up/x/unpacked/seq").moved(from: "/up/x/unpacked/seq", to: "bundle"), .source("tum:bundle"))
        // A sibling whose name merely starts like the root is not inside it.
        XCTAssertNil(CloudError.Subject.file("/up/x/unpacked/sequel/a.png").moved(from: "/up/x/unpacked/seq", to: "bundle"))
        XCTAssertNil(CloudError.Subject.option("voxel", "0").moved(from: "/", to: "bundle"))
    }
}
