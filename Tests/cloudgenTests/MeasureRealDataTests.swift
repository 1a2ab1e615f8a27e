import Foundation
import SharedTestData
import XCTest

/// `cloudgen measure` on the real frames of ../shared/data: its floor is Open3D's and PCL's
/// (RealFloorReference, pinned from their runs on the same points) within 1 degree and 1 cm, and
/// a single frame's camera stands as high above it as the reference floor says, with an
/// uncertainty that covers the difference.
final class MeasureRealDataTests: XCTestCase {
    func testFloorEqualsOpen3DAndPCLOnRealFrames() throws {
        let data = try sharedDataDirectory()
        for reference in RealFloorReference.all {
            let r = try CLI.run(["measure"] + reference.arguments(data: data) + ["--json"])
            XCTAssertEqual(r.status, 0, "\(reference.name): \(r.stderr)")
            let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], reference.name)
            XCTAssertEqual((report["up"] as? [String: Any])?["method"] as? String, "planes", reference.name)
            let floor = try XCTUnwrap(report["floor"] as? [String: Any], "\(reference.name): no floor: \(report["reasons"] ?? "")")
            let plane = try XCTUnwrap(floor["plane"] as? [Double])
            let (degrees, metres) = reference.disagreement(normal: SIMD3(plane[0], plane[1], plane[2]), offset: plane[3])
            XCTAssertLessThan(degrees, 1, "\(reference.name): the floor is \(degrees) degrees from Open3D's")
            XCTAssertLessThan(metres, 0.01, "\(reference.name): the floor is \(metres) m from Open3D's at its centroid")
            let cameras = try XCTUnwrap(report["cameras"] as? [String: Any])
            let camera =
                (cameras["height"] as? [String: Double]).map {
                    String(
                        format: ", camera %.3f ± %.3f m above it (the reference: %.3f m)", $0["value"]!, $0["sigma"]!,
                        reference.height(of: .zero))
                } ?? ""
            print(String(format: "%@: the floor is %.2f° and %.1f mm from Open3D's%@", reference.name, degrees, 1000 * metres, camera))
            if reference.arguments.contains("--fuse") {
                XCTAssertTrue(cameras["height"] is NSNull, "\(reference.name): several cameras have no single height")
            } else {
                let height = try XCTUnwrap(cameras["height"] as? [String: Double], "\(reference.name): no camera height")
                let truth = reference.height(of: .zero)
                XCTAssertEqual(height["value"]!, truth, accuracy: max(0.01, 2 * height["sigma"]!), reference.name)
                XCTAssertGreaterThan(height["sigma"]!, 0, reference.name)
            }
        }
    }
}
