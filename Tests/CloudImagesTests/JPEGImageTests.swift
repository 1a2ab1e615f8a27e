import CloudCore
import CloudImages
import XCTest

/// JPEG decoding through Debian's libjpeg-turbo 2.1.5, against Open3D 0.20's decode (its bundled
/// libjpeg-turbo): both use the default integer IDCT and fancy upsampling, and agree exactly.
final class JPEGImageTests: XCTestCase {
    func testOpen3DColorFrameEqualsOpen3DDecode() throws {
        let image = try ImageFile.read(try ImageFixtures.path("open3d-rgbd/color/00000.jpg"))
        ImageFixtures.assertMatches(
            image,
            .init(
                channels: 3, bitDepth: 8, sum: 179_914_237, weightedSum: 22_666_418_718,
                probeSamples: [
                    [174, 232, 254], [255, 255, 255], [254, 254, 254],
                    [132, 89, 55], [210, 177, 168]
                ]), "00000.jpg")
    }

    func testSUNColorEqualsOpen3DDecode() throws {
        let image = try ImageFile.read(try ImageFixtures.path("open3d-rgbd/other_formats/SUN_color.jpg"))
        ImageFixtures.assertMatches(
            image,
            .init(
                channels: 3, bitDepth: 8, sum: 70_797_444, weightedSum: 8_917_050_378,
                probeSamples: [
                    [99, 114, 137], [76, 73, 68], [100, 99, 104],
                    [44, 42, 43], [102, 82, 55]
                ]), "SUN_color.jpg")
    }

    func testColorImageReusesRGBSamples() throws {
        let path = try ImageFixtures.path("open3d-rgbd/color/00000.jpg")
        let decoded = try ImageFile.read(path)
        let color = try decoded.colorImage(origin: path)
        XCTAssertEqual(color.width, 640)
        XCTAssertEqual(color.height, 480)
        XCTAssertEqual(Array(color.rgb[0..<3]), [174, 232, 254])
        XCTAssertEqual(decoded.samples, .uint8(color.rgb))
    }
}
