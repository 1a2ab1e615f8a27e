import CloudCore
import Foundation
import XCTest

@testable import CloudService

/// One warning, two wordings: the CLI's flags and the service's fields, both rendered from the
/// warning's subject and reason (as the pipeline, the sources and the filters make them).
final class HTTPWordingTests: XCTestCase {
    func testAWarningsOptionsAreFlagsOnTheCLIAndFieldsOverHTTP() {
        let cases: [(warning: CloudWarning, cli: String, http: String)] = [
            // The pipeline's own warning for a sequence shorter than asked.
            (
                CloudWarning(.source("synthetic"), "\(option: "frames", "24"): the source has only 1 frame"),
                "synthetic: --frames 24: the source has only 1 frame", "synthetic: frames=24: the source has only 1 frame"
            ),
            (
                CloudWarning(
                    .file("groundtruth.txt"), "2 frames lack poses; \(switch: "fuse") and \(option: "frame", "world") leave them out"),
                "groundtruth.txt: 2 frames lack poses; --fuse and --frame world leave them out",
                "groundtruth.txt: 2 frames lack poses; fuse=true and frame=world leave them out"
            ),
            (
                CloudWarning("\(option: "range", "0.3,4") dropped 10 of 20 valid depth pixels (50%)"),
                "--range 0.3,4 dropped 10 of 20 valid depth pixels (50%)", "range=0.3,4 dropped 10 of 20 valid depth pixels (50%)"
            ),
            (
                CloudWarning(
                    .source("photo:p.jpg"), "the cloud's units are not metres; \(option: "known-distance", "X,Y=METRES") scales it"),
                "photo:p.jpg: the cloud's units are not metres; --known-distance X,Y=METRES scales it",
                "photo:p.jpg: the cloud's units are not metres; known_distance=X,Y=METRES scales it"
            ),
            (
                CloudWarning(.source("rgbd:c,d"), "pass \(option: "depth-scale", "S") if the depth image uses other units"),
                "rgbd:c,d: pass --depth-scale S if the depth image uses other units",
                "rgbd:c,d: pass depth_scale=S if the depth image uses other units"
            ),
            (
                CloudWarning("\(CloudError.Option("voxel", "0.01")) drops the organized grid"),
                "--voxel 0.01 drops the organized grid", "voxel=0.01 drops the organized grid"
            ),
            // An option no route takes keeps its flag: a client has no field to send it as.
            (
                CloudWarning(.source("stray:s"), "(\(option: "min-confidence", "0") keeps it)"),
                "stray:s: (--min-confidence 0 keeps it)", "stray:s: (--min-confidence 0 keeps it)"
            )
        ]
        for (warning, cli, http) in cases {
            XCTAssertEqual(warning.message, cli)
            XCTAssertEqual(FieldWording.line(warning), http)
        }
    }

    /// A report stored by an earlier version kept the CLI's wording; it is returned as it was
    /// stored (Docs/http.md), as every stored report is, never reworded when read.
    func testAReportIsReturnedAsItWasStored() throws {
        let report = """
            {"warnings": ["synthetic: --frames 24: the source has only 1 frame"], "filters": [{"name": "voxel", "argument": "--voxel 0.01"}], "links": {}}
            """
        let record = CaptureRecord(
            id: CaptureID(), created: Date(), source: "synthetic", points: 1, bounds: nil, bytes: 1, frames: 1, report: report)
        let document = try record.documentValue()
        XCTAssertEqual(document["warnings"], .array(["synthetic: --frames 24: the source has only 1 frame"]))
        XCTAssertEqual(document["filters"], .array([.object(["name": "voxel", "argument": "--voxel 0.01"])]))
    }
}
