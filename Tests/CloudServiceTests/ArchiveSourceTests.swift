@testable import CloudService
import Foundation
import SharedTestData
import XCTest

/// Which source reads an unpacked archive when the client does not say: each layout by the files
/// that mark it, and a refusal naming them all for anything else.
final class ArchiveSourceTests: XCTestCase {
    func testEachLayoutIsKnownByItsFiles() throws {
        let layouts: [(files: [String], kind: String)] = [
            (["manifest.json"], "bundle"), (["rgb.txt", "depth.txt", "groundtruth.txt"], "tum"), (["color/", "depth/"], "redwood"),
            (["frame_1.xml", "frame_1_depth.pclzf"], "pclgrabber"), (["keyframes/", "raw.glb", "mesh_info.json"], "polycam"),
            (["rgb.mp4", "odometry.csv", "camera_matrix.csv", "imu.csv", "depth/", "confidence/"], "stray"),
        ]
        for layout in layouts {
            let folder = try scratchFolder()
            for name in layout.files {
                let path = folder.appendingPathComponent(name)
                if name.hasSuffix("/") {
                    try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
                } else {
                    try Data().write(to: path)
                }
            }
            XCTAssertEqual(try ArchiveSource.spec(kind: nil, folder: folder.path), "\(layout.kind):\(folder.path)")
            XCTAssertEqual(try ArchiveSource.spec(kind: layout.kind, folder: folder.path), "\(layout.kind):\(folder.path)", "said by the client")
        }
        let unknown = try scratchFolder()
        XCTAssertThrowsError(try ArchiveSource.spec(kind: nil, folder: unknown.path)) { error in
            XCTAssertTrue((error as? Problem)?.detail.contains("nor a Stray Scanner export (rgb.mp4, odometry.csv)") == true, "\(error)")
        }
        XCTAssertThrowsError(try ArchiveSource.spec(kind: "synthetic", folder: unknown.path))
    }
}
