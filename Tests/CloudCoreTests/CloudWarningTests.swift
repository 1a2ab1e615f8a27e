import CloudCore
import XCTest

/// A warning is worded as an error is: subject, then reason, with options as flags on the CLI;
/// the files its reason names are renamed by structure (a door's own names), never found in text.
final class CloudWarningTests: XCTestCase {
    func testTheCLILineIsSubjectThenReasonWithFlagsAndPaths() {
        let scale = CloudWarning(.source("rgbd:c.png,d.png"), "depth scale assumed; pass \(option: "depth-scale", "S") otherwise")
        XCTAssertEqual(scale.message, "rgbd:c.png,d.png: depth scale assumed; pass --depth-scale S otherwise")
        let grid = CloudWarning("\(CloudError.Option("voxel", "0.01")) drops the organized grid")
        XCTAssertEqual(grid.message, "--voxel 0.01 drops the organized grid")
        let given = CloudWarning(
            .source("redwood:/d"), "using \(option: "intrinsics", file: "/k.json") instead of \(file: "/d/camera.json")")
        XCTAssertEqual(given.message, "redwood:/d: using --intrinsics /k.json instead of /d/camera.json")
    }

    func testRenamingReachesTheFilesAReasonNamesAndNothingElse() {
        let reason: CloudError.Reason =
            "using \(option: "intrinsics", file: "/up/k") instead of \(file: "/up/scan/camera.json"), \(option: "depth-scale", "/up/k")"
        let renamed = reason.renaming { subject in
            guard case let .file(path) = subject else { return subject }
            return path == "/up/k" ? .part("intrinsics") : subject.moved(from: "/up/scan", to: "bundle") ?? subject
        }
        // An option's value that is no path stays as it was, whatever it looks like.
        XCTAssertEqual(renamed.text, "using --intrinsics intrinsics instead of bundle/camera.json, --depth-scale /up/k")
        XCTAssertEqual(reason.text, "using --intrinsics /up/k instead of /up/scan/camera.json, --depth-scale /up/k")
    }
}
