import CloudCore
import CloudFiles
import Foundation
import SharedTestData
import XCTest

/// `CloudWriter.binaryPLYSize`, which the service's lazy store answers the 201's point count and
/// size with, must give what `write` then writes for every layout a capture can have.
final class BinaryPLYSizeTests: XCTestCase {
    func testTheCountedSizeIsTheWrittenFilesForEveryLayout() throws {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pose = Pose(rows: (SIMD3(1, 0, 0), SIMD3(0, -1, 0), SIMD3(0, 0, -1)), translation: SIMD3(1, 2, 3))
        for colors in [false, true] {
            for normals in [false, true] {
                for organized in [false, true] {
                    for (viewpoint, relative) in [(nil, false), (pose, false), (nil, true)] as [(Pose?, Bool)] {
                        let cloud = syntheticCloud(colors: colors, normals: normals, organized: organized, curvature: normals)
                        let path = folder.appendingPathComponent("cloud.ply").path
                        let points = try CloudWriter.write(
                            cloud, to: path, format: .ply(.binary), viewpoint: viewpoint, relativeUnits: relative)
                        let counted = try CloudWriter.binaryPLYSize(cloud, for: path, viewpoint: viewpoint, relativeUnits: relative)
                        let what =
                            "colors \(colors), normals \(normals), organized \(organized), viewpoint \(viewpoint != nil), relative \(relative)"
                        XCTAssertEqual(counted.points, points, what)
                        XCTAssertEqual(counted.bytes, try Data(contentsOf: URL(fileURLWithPath: path)).count, what)
                    }
                }
            }
        }
    }

    func testACloudWithNothingToWriteIsRefusedAsWriteRefusesIt() {
        let allNaN = PointCloud(positions: [.nan, .nan, .nan, 1, .infinity, 2])
        assertCloudError(.badInput, naming: "nan.ply", containing: "finite") { _ = try CloudWriter.binaryPLYSize(allNaN, for: "nan.ply") }
    }
}
