import CloudCore
import CloudIO
import XCTest

/// PNG decoding through libpng, against Open3D 0.20's decode of the same files
/// (`np.asarray(o3d.io.read_image(path))`, sums computed with numpy).
final class PNGImageTests: XCTestCase {
    func testOpen3DDepthFrameIsExact() throws {
        let image = try ImageFile.read(try ImageFixtures.path("open3d-rgbd/depth/00000.png"))
        ImageFixtures.assertMatches(image, .init(channels: 1, bitDepth: 16, sum: 479_199_333, weightedSum: 60_389_089_928,
                                                 probeSamples: [[0], [2195], [1682], [0], [2422]]), "00000.png")
    }

    func testTUMDepthAndColor() throws {
        let depth = try ImageFile.read(try ImageFixtures.path("open3d-rgbd/other_formats/TUM_depth.png"))
        ImageFixtures.assertMatches(depth, .init(channels: 1, bitDepth: 16, sum: 3_074_716_315, weightedSum: 387_303_759_035,
                                                 probeSamples: [[0], [10920], [0], [0], [7615]]), "TUM_depth.png")
        let color = try ImageFile.read(try ImageFixtures.path("open3d-rgbd/other_formats/TUM_color.png"))
        ImageFixtures.assertMatches(color, .init(channels: 3, bitDepth: 8, sum: 101_558_687, weightedSum: 12_793_298_070,
                                                 probeSamples: [[158, 161, 157], [252, 252, 250], [101, 106, 118],
                                                                [117, 121, 130], [73, 40, 61]]), "TUM_color.png")
    }

    /// SUN RGB-D stores depth with its bits rotated; the decoder returns the stored values as they are.
    func testSUNDepthKeepsStoredValues() throws {
        let depth = try ImageFile.read(try ImageFixtures.path("open3d-rgbd/other_formats/SUN_depth.png"))
        ImageFixtures.assertMatches(depth, .init(channels: 1, bitDepth: 16, sum: 5_891_375_813, weightedSum: 742_054_005_715,
                                                 probeSamples: [[0], [0], [42992], [0], [14208]]), "SUN_depth.png")
    }

    /// The depth PNG as metres, the way an RGBD source will use it (1000 units per metre).
    func testDepthPNGAsDepthMap() throws {
        let path = try ImageFixtures.path("open3d-rgbd/depth/00000.png")
        let depth = try ImageFile.read(path).depthMap(unitsPerMetre: 1000, origin: path)
        XCTAssertEqual(depth.width, 640)
        XCTAssertEqual(depth.metres[240 * 640 + 320], 2.195)
        XCTAssertEqual(depth.metres[0], 0)
    }
}
