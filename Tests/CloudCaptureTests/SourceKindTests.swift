import CloudCore
import Foundation
import XCTest

@testable import CloudCapture

/// `SourceKind.all` is the one table of source kinds: each kind's spec parses to its own row, the
/// options check follows the rows, the folder layouts tell each other apart, and Docs/cli.md's
/// list of specs is the table's.
final class SourceKindTests: XCTestCase {
    /// A spec of every kind, in the table's order.
    static let examples = [
        "synthetic", "rgbd:c.png,d.png", "tum:/t", "redwood:/r", "pclgrabber:/p", "bundle:/b", "polycam:/p",
        "photo:/p.heic", "stray:/s", "record3d:/r", "kinect", "openni2"
    ]

    func testEverySpecParsesToItsOwnRow() throws {
        XCTAssertEqual(SourceKind.all.map(\.name), Self.examples.map { String($0.prefix { $0 != ":" }) })
        for example in Self.examples {
            let spec = try SourceSpec(parsing: example)
            XCTAssertEqual(spec.sourceKind.name, spec.kind, example)
            XCTAssertTrue(example.hasPrefix(spec.kind), example)
        }
        XCTAssertEqual(Set(SourceKind.all.map(\.name)).count, SourceKind.all.count, "a kind is listed twice")
    }

    /// Each option is refused for exactly the kinds whose row does not take it, with the takers named.
    func testTheOptionsCheckFollowsTheTable() throws {
        let given: [SourceKind.Option: SourceOptions] = [
            .intrinsics: SourceOptions(intrinsicsPath: "k.json"), .depthScale: SourceOptions(depthUnitsPerMetre: 1000),
            .depthEncoding: SourceOptions(depthEncoding: .sun), .minConfidence: SourceOptions(minConfidence: 1),
            .knownDistance: SourceOptions(knownDistance: KnownDistance(x: 1, y: 1, metres: 1)), .matte: SourceOptions(matte: true)
        ]
        XCTAssertEqual(Set(given.keys), Set(SourceKind.Option.allCases))
        for example in Self.examples {
            let spec = try SourceSpec(parsing: example)
            for (option, options) in given {
                if spec.sourceKind.options.contains(option) {
                    XCTAssertNoThrow(try options.check(for: spec), "\(example) takes --\(option.rawValue)")
                } else {
                    let takers = SourceKind.taking(option).map { "\($0.name):" }.joined(separator: ", ")
                    XCTAssertThrowsError(try options.check(for: spec)) { error in
                        XCTAssertEqual(
                            (error as? CloudError)?.message,
                            "--\(option.rawValue) does not apply to \(spec.kind): sources (only to \(takers))")
                    }
                }
            }
        }
        // What the documentation says each takes (Docs/cli.md's option table).
        XCTAssertEqual(SourceKind.taking(.depthScale).map(\.name), ["rgbd", "tum", "redwood", "pclgrabber"])
        XCTAssertEqual(SourceKind.taking(.minConfidence).map(\.name), ["polycam", "stray"])
        XCTAssertEqual(SourceKind.taking(.matte).map(\.name), ["photo"])
    }

    /// The folders each layout describes, as their exports have them: each is recognised as its
    /// own kind and as no other, so the order the table is tried in cannot matter.
    func testFolderLayoutsTellEachOtherApart() {
        let folders: [String: Set<String>] = [
            "tum": ["rgb.txt", "depth.txt", "rgb", "depth", "groundtruth.txt", "accelerometer.txt"],
            "redwood": ["color", "depth", "camera_intrinsic.json", "trajectory.log"],
            "pclgrabber": [
                "frame_20121214T142255.814212.xml", "frame_20121214T142255.814212_depth.pclzf", "frame_20121214T142255.814212_rgb.pclzf"
            ],
            "bundle": ["manifest.json", "frames"],
            "polycam": ["keyframes", "mesh_info.json"],
            "stray": ["rgb.mp4", "odometry.csv", "camera_matrix.csv", "depth", "confidence"],
            "record3d": ["metadata.json", "rgb", "depth"]
        ]
        XCTAssertEqual(Set(folders.keys), Set(SourceKind.all.filter { $0.layout != nil }.map(\.name)))
        for (kind, entries) in folders {
            let matching = SourceKind.all.filter { $0.layout?.matches(entries) == true }.map(\.name)
            XCTAssertEqual(matching, [kind], "a \(kind) folder")
        }
        XCTAssertNil(SourceKind.recognise(folderEntries: ["notes.txt", "images"]))
    }

    /// Docs/cli.md's "Source specs" block lists the table's kinds, in its order, each by its form.
    func testTheCLIDocumentListsTheTable() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Docs/cli.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let section = try XCTUnwrap(text.components(separatedBy: "### Source specs").dropFirst().first)
        let block = try XCTUnwrap(section.components(separatedBy: "```").dropFirst().first)
        // A spec starts its line; its description and the synthetic camera's keys are indented.
        let forms = block.split(separator: "\n").filter { !$0.hasPrefix(" ") }.map { String($0.split(separator: " ").first ?? "") }
        XCTAssertEqual(forms, SourceKind.all.map(\.form))
    }
}
