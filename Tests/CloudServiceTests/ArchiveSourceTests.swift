import CloudCapture
import Foundation
import HTTPTypes
import SharedTestData
import XCTest

@testable import CloudService

/// Which source reads an unpacked archive when the client does not say: each layout by the files
/// that mark it, and a refusal naming them all for anything else.
final class ArchiveSourceTests: XCTestCase {
    func testEachLayoutIsKnownByItsFiles() throws {
        let layouts: [(files: [String], kind: String)] = [
            (["manifest.json"], "bundle"), (["rgb.txt", "depth.txt", "groundtruth.txt"], "tum"), (["color/", "depth/"], "redwood"),
            (["frame_1.xml", "frame_1_depth.pclzf"], "pclgrabber"), (["keyframes/", "raw.glb", "mesh_info.json"], "polycam"),
            (["rgb.mp4", "odometry.csv", "camera_matrix.csv", "imu.csv", "depth/", "confidence/"], "stray"),
            (["metadata.json", "rgb/", "depth/"], "record3d")
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
            XCTAssertEqual(try ArchiveSource.spec(kind: nil, folder: folder.path).text, "\(layout.kind):\(folder.path)")
            XCTAssertEqual(
                try ArchiveSource.spec(kind: layout.kind, folder: folder.path).text, "\(layout.kind):\(folder.path)", "said by the client")
        }
        let unknown = try scratchFolder()
        XCTAssertThrowsError(try ArchiveSource.spec(kind: nil, folder: unknown.path)) { error in
            for layout in [
                "a capture bundle (manifest.json)", "a TUM sequence (rgb.txt, depth.txt)", "a Redwood folder (color/, depth/)",
                "PCL grabber frames (*.xml, *_depth.*)", "a Polycam raw-data export (keyframes/)",
                "a Stray Scanner export (rgb.mp4, odometry.csv)", "a Record3D EXR + JPG export (metadata.json, rgb/, depth/)"
            ] {
                XCTAssertTrue((error as? Problem)?.detail.contains(layout) == true, "\(error) does not name \(layout)")
            }
        }
        XCTAssertThrowsError(try ArchiveSource.spec(kind: "synthetic", folder: unknown.path))
    }

    /// A Record3D .r3d unpacked (metadata, rgbd/ with LZFSE depth) is no export cloudgen reads:
    /// the problem says which export to upload instead.
    func testAnR3DRecordingIsRefusedWithTheExportToUpload() throws {
        let folder = try scratchFolder()
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("rgbd"), withIntermediateDirectories: true)
        for name in ["metadata", "icon", "rgbd/0.jpg", "rgbd/0.depth", "rgbd/0.conf"] {
            try Data("x".utf8).write(to: folder.appendingPathComponent(name))
        }
        XCTAssertThrowsError(try ArchiveSource.spec(kind: nil, folder: folder.path)) { error in
            let problem = error as? Problem
            XCTAssertEqual(problem?.status.code, 422, "\(error)")
            XCTAssertTrue(
                problem?.detail.contains("export the recording from Record3D as \"EXR + JPG\" and upload a zip of that folder") == true,
                "\(error)")
        }
    }
}
