import CloudCore
import SharedTestData
import XCTest

@testable import CloudImages

/// Binary PGM/PPM, against numpy reading the raster as the Netpbm specification says
/// (`np.frombuffer(body, '>u2')` for maxval 65535, `'u1'` for 255).
final class PNMImageTests: XCTestCase {
    /// NYU's depth PGM says maxval 65535, so its samples are big-endian by the specification and
    /// are returned as such. (Its bytes are in fact little-endian 11-bit Kinect disparity, 2047
    /// meaning none, which is why NYU's toolbox byte-swaps after reading: that is the dataset
    /// reader's business, not the decoder's.)
    func testNYUDepthIsBigEndianAsTheFormatSays() throws {
        let image = try ImageFile.read(try ImageFixtures.path("open3d-rgbd/other_formats/NYU_depth.pgm"))
        ImageFixtures.assertMatches(
            image,
            .init(
                channels: 1, bitDepth: 16, sum: 14_489_851_222, weightedSum: 1_825_739_508_666,
                probeSamples: [[65287], [53507], [53507], [65287], [65287]]), "NYU_depth.pgm")
        XCTAssertEqual(ImageFixtures.pixel(image, y: 0, x: 0), [0xFF07])
    }

    func testNYUColor() throws {
        let image = try ImageFile.read(try ImageFixtures.path("open3d-rgbd/other_formats/NYU_color.ppm"))
        ImageFixtures.assertMatches(
            image,
            .init(
                channels: 3, bitDepth: 8, sum: 83_747_469, weightedSum: 10_551_651_506,
                probeSamples: [
                    [220, 248, 235], [98, 102, 112], [45, 1, 1],
                    [169, 147, 115], [64, 92, 147]
                ]), "NYU_color.ppm")
    }

    func testHeaderCommentsAndWhitespace() throws {
        let header = Array("P5\n# made by hand\n3 # width\n\t2\r\n# maxval next\n1000\n".utf8)
        let raster: [UInt8] = [0x00, 0x01, 0x03, 0xE8, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x03, 0xE7]
        let image = try ImageFile.decode(header + raster, origin: "hand.pgm")
        XCTAssertEqual(image, DecodedImage(width: 3, height: 2, channels: 1, samples: .uint16([1, 1000, 256, 0, 512, 999])))

        let ppm = try ImageFile.decode(Array("P6 2 1 255 ".utf8) + [1, 2, 3, 4, 5, 6, 99], origin: "hand.ppm")
        XCTAssertEqual(
            ppm, DecodedImage(width: 2, height: 1, channels: 3, samples: .uint8([1, 2, 3, 4, 5, 6])),
            "one whitespace byte after maxval, trailing bytes (a next image) ignored")
    }

    /// The specification bounds every sample by maxval: one above it is corrupt data or a lying
    /// maxval, refused with the sample's index, in 16-bit and in 8-bit rasters.
    func testRefusesSamplesAboveMaxval() {
        assertBadInput(naming: "over.pgm", containing: "sample 5 is 1001, above the header's maxval 1000") {
            try ImageFile.decode(Array("P5 3 2 1000\n".utf8) + [0, 1, 3, 0xE8, 1, 0, 0, 0, 2, 0, 0x03, 0xE9], origin: "over.pgm")
        }
        assertBadInput(naming: "over.ppm", containing: "sample 4 is 101, above the header's maxval 100") {
            try ImageFile.decode(Array("P6 2 1 100\n".utf8) + [1, 2, 3, 100, 101, 6], origin: "over.ppm")
        }
    }

    func testRefusesWhatItDoesNotRead() {
        assertBadInput(naming: "a.pgm", containing: "ASCII") {
            try ImageFile.decode(Array("P2 1 1 255 7".utf8), origin: "a.pgm")
        }
        assertBadInput(naming: "b.pbm", containing: "P4") {
            try ImageFile.decode(Array("P4 8 1 ".utf8) + [0xAA], origin: "b.pbm")
        }
        assertBadInput(naming: "c.pgm", containing: "maxval") {
            try ImageFile.decode(Array("P5 1 1 70000 ".utf8) + [0, 0], origin: "c.pgm")
        }
        assertBadInput(naming: "d.pgm", containing: "height") {
            try ImageFile.decode(Array("P5 1 # no height".utf8), origin: "d.pgm")
        }
        assertBadInput(naming: "e.pgm", containing: "absurdly large") {
            try ImageFile.decode(Array("P5 99999999999999999999999 1 255 ".utf8), origin: "e.pgm")
        }
        assertBadInput(naming: "f.pgm", containing: "0x1") {
            try ImageFile.decode(Array("P5 0 1 255 ".utf8), origin: "f.pgm")
        }
    }
}
