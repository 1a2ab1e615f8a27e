import CloudCapture
import CloudCore
import Foundation
import SharedTestData
import XCTest

/// groundtruth.txt as the TUM benchmark writes it: the quaternion's rotation, the nearest sample
/// within 20 ms, and a refusal naming the file and line for anything that is not a pose.
final class TUMGroundTruthTests: XCTestCase {
    private func file(_ text: String) throws -> String {
        let path = try DatasetFixture.scratch(self) + "/groundtruth.txt"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testQuaternionsAreCameraToWorldRotationsAndTheNearestSampleWithin20msIsTaken() throws {
        // 90 degrees about z (qz = qw = sin 45), then the identity; lines out of order, with TUM's header.
        let s = 0.5.squareRoot()
        let truth = try TUMGroundTruth(
            path: try file(
                """
                # ground truth trajectory
                # timestamp tx ty tz qx qy qz qw
                100.03125 4 5 6 0 0 0 2
                100.000 1 2 3 0 0 \(s) \(s)

                """))
        XCTAssertEqual(truth.samples.map(\.timestamp), [100.000, 100.03125])
        let turned = try XCTUnwrap(truth.pose(at: 99.985))
        let p = turned.apply(SIMD3(1, 0, 0))
        XCTAssertEqual(p.x, 1, accuracy: 1e-12)  // (1,0,0) turned to (0,1,0), then moved by (1,2,3)
        XCTAssertEqual(p.y, 3, accuracy: 1e-12)
        XCTAssertEqual(p.z, 3, accuracy: 1e-12)
        // A quaternion of norm 2 is normalized: the identity.
        let still = try XCTUnwrap(truth.pose(at: 100.025))
        XCTAssertEqual(still.apply(SIMD3(1, 1, 1)), SIMD3(5, 6, 7))
        XCTAssertEqual(truth.pose(at: 100.015625)?.translation, SIMD3(1, 2, 3), "a tie goes to the earlier sample")
        XCTAssertEqual(truth.pose(at: 100.05125)?.translation, SIMD3(4, 5, 6), "20 ms is within reach")
        XCTAssertNil(truth.pose(at: 100.052))
        XCTAssertNil(truth.pose(at: 99.979))
    }

    func testWhatIsNotAPoseIsRefusedNamingTheFileAndLine() throws {
        for (text, detail) in [
            ("100 1 2 3 0 0 0\n", "line 1: expected 'timestamp tx ty tz qx qy qz qw'"),
            ("# header\n100 1 2 3 0 0 0 1 9\n", "line 2: expected"),
            ("100 1 2 nan 0 0 0 1\n", "8 finite numbers"),
            ("100 1 2 3 0 0 0 x\n", "line 1"),
            ("100 1 2 3 0 0 0 0\n", "line 1: the quaternion qx qy qz qw is zero"),
            ("# only a header\n\n", "holds no pose")
        ] {
            let path = try file(text)
            assertCloudError(.badInput, naming: path, containing: detail) { try TUMGroundTruth(path: path) }
        }
        let binary = try file("")
        try Data([0xFF, 0xFE, 0x00, 0xC3]).write(to: URL(fileURLWithPath: binary))
        assertCloudError(.badInput, naming: binary, containing: "not a text file") { try TUMGroundTruth(path: binary) }
    }
}
