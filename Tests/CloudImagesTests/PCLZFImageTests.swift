import CloudCore
import SharedTestData
import XCTest

@testable import CloudImages
@testable import SafeIO

/// PCL image-grabber frames, each stored twice by PCL: as PCLZF and as TIFF (PackBits). Reference
/// figures are numpy's over the TIFF rasters (decoded in Python independently of libtiff) and
/// over a Python LZF decoder's output for the PCLZF files: the two agree to the byte.
final class PCLZFImageTests: XCTestCase {
    struct Frame {
        var name: String
        var depth: ImageFixtures.Reference
        var rgb: ImageFixtures.Reference
    }

    static let frames = [
        Frame(
            name: "frame_20121214T142255.814212",
            depth: .init(
                channels: 1, bitDepth: 16, sum: 269_271_260, weightedSum: 33_925_872_119,
                probeSamples: [[0], [854], [1292], [0], [860]]),
            rgb: .init(
                channels: 3, bitDepth: 8, sum: 62_432_785, weightedSum: 7_866_717_103,
                probeSamples: [[56, 59, 69], [122, 120, 114], [108, 113, 125], [2, 2, 4], [46, 44, 38]])),
        Frame(
            name: "frame_20121214T142256.068683",
            depth: .init(
                channels: 1, bitDepth: 16, sum: 269_156_057, weightedSum: 33_908_879_717,
                probeSamples: [[0], [860], [1302], [0], [858]]),
            rgb: .init(
                channels: 3, bitDepth: 8, sum: 62_198_976, weightedSum: 7_838_046_709,
                probeSamples: [[50, 53, 63], [121, 119, 113], [99, 101, 109], [2, 2, 2], [49, 43, 29]]))
    ]

    /// depth16 is little-endian millimetres; rgb24 is planar (all R, all G, all B), which the
    /// decoder interleaves: both equal the TIFF of the same frame exactly.
    func testPCLZFEqualsTIFFOfTheSameFrame() throws {
        for frame in Self.frames {
            for (kind, reference) in [("depth", frame.depth), ("rgb", frame.rgb)] {
                let pclzf = try ImageFile.read(try ImageFixtures.path("pcl-grabber/\(frame.name)_\(kind).pclzf"))
                let tiff = try ImageFile.read(try ImageFixtures.path("pcl-grabber/\(frame.name)_\(kind).tiff"))
                ImageFixtures.assertMatches(pclzf, reference, "\(frame.name)_\(kind).pclzf")
                ImageFixtures.assertMatches(tiff, reference, "\(frame.name)_\(kind).tiff")
                XCTAssertTrue(pclzf == tiff, "\(frame.name) \(kind): PCLZF and TIFF differ")
            }
        }
    }

    /// A yuv422 PCLZF written by PCL 1.13's `LZFYUV422ImageWriter` from 8x2 UYVY pixels (U, V
    /// chosen to clamp both ways), and the colors PCL's `LZFYUV422ImageReader` made of it.
    func testYUV422MatchesPCLsReader() throws {
        let file: [UInt8] = [
            0x50, 0x43, 0x4C, 0x5A, 0x46, 0x08, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x79, 0x75, 0x76,
            0x34, 0x32, 0x32, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x21, 0x00, 0x00,
            0x00, 0x20, 0x00, 0x00, 0x00, 0x1F, 0x80, 0x00, 0xFF, 0x5A, 0x80, 0xC8, 0x10, 0xF0, 0x00, 0xFF,
            0x80, 0x80, 0x0A, 0xF5, 0x3C, 0xC8, 0x80, 0x81, 0x1E, 0x28, 0x10, 0xEB, 0xFF, 0x00, 0x80, 0xFF,
            0x00, 0xF0, 0x3C, 0x80, 0x10, 0xF0
        ]
        let pcl: [UInt8] = [
            0, 0, 0, 255, 255, 255, 255, 105, 0, 255, 105, 0, 0, 34, 255, 99, 255, 255, 188, 10, 0, 255, 150, 123,
            50, 168, 128, 51, 169, 129, 30, 2, 176, 40, 12, 186, 0, 125, 0, 107, 255, 7, 255, 146, 255, 128, 0, 228
        ]
        let image = try ImageFile.decode(file, origin: "yuv.pclzf")
        XCTAssertEqual(image, DecodedImage(width: 8, height: 2, channels: 3, samples: .uint8(pcl)))
    }

    func testDepthPCLZFAsDepthMap() throws {
        let path = try ImageFixtures.path("pcl-grabber/frame_20121214T142255.814212_depth.pclzf")
        let depth = try ImageFile.read(path).depthMap(unitsPerMetre: 1000, origin: path)
        XCTAssertEqual(depth.metres[240 * 640 + 320], 0.854)
    }

    /// 61 bytes claiming a 16384x16384 depth16 image (512 MiB): 24 bytes of LZF make at most
    /// 2112, so the header alone refuses it, before any output buffer exists.
    func testTinyFileClaimingAHugeImage() throws {
        var file = Array("PCLZF".utf8)
        for value in [UInt32(16384), 16384] { withUnsafeBytes(of: value.littleEndian) { file += $0 } }
        file += Array("depth16         ".utf8)
        for value in [UInt32(24), UInt32(16384 * 16384 * 2)] { withUnsafeBytes(of: value.littleEndian) { file += $0 } }
        file += [0x1F] + Array(repeating: 0, count: 23)
        XCTAssertEqual(file.count, 61)
        assertBadInput(naming: "bomb.pclzf", containing: "compressed block of 24 bytes cannot unpack to 536870912 bytes") {
            try ImageFile.decode(file, origin: "bomb.pclzf")
        }
    }

    func testHeaderChecks() throws {
        let path = try ImageFixtures.path("pcl-grabber/frame_20121214T142255.814212_depth.pclzf")
        let good = try InputFile.readAll(path)
        func patched(_ fields: [(offset: Int, value: UInt32)]) -> [UInt8] {
            var bytes = good
            for field in fields {
                withUnsafeBytes(of: field.value.littleEndian) { bytes.replaceSubrange(field.offset..<(field.offset + 4), with: $0) }
            }
            return bytes
        }
        assertBadInput(naming: "huge.pclzf", containing: "100000x100000") {
            try ImageFile.decode(patched([(5, 100_000), (9, 100_000)]), origin: "huge.pclzf")
        }
        assertBadInput(naming: "raw.pclzf", containing: "raw bytes") {
            try ImageFile.decode(patched([(33, 614_398)]), origin: "raw.pclzf")
        }
        assertBadInput(naming: "long.pclzf", containing: "compressed data") {
            try ImageFile.decode(good + [0], origin: "long.pclzf")
        }
        var type = good
        type.replaceSubrange(13..<29, with: Array("float32         ".utf8))
        assertBadInput(naming: "type.pclzf", containing: "'float32'") {
            try ImageFile.decode(type, origin: "type.pclzf")
        }
        // Compressed sizes that no LZF stream can reach: refused before the output is allocated.
        assertBadInput(naming: "ratio.pclzf", containing: "compressed block of 3000 bytes cannot unpack to 614400 bytes") {
            var small = Array(good[0..<(37 + 3000)])
            withUnsafeBytes(of: UInt32(3000).littleEndian) { small.replaceSubrange(29..<33, with: $0) }
            return try ImageFile.decode(small, origin: "ratio.pclzf")
        }
        // A truncated stream whose header was made to agree: the LZF decoder itself must notice.
        var cut = Array(good[0..<(37 + 7000)])
        withUnsafeBytes(of: UInt32(7000).littleEndian) { cut.replaceSubrange(29..<33, with: $0) }
        assertBadInput(naming: "cut.pclzf", containing: "LZF") {
            try ImageFile.decode(cut, origin: "cut.pclzf")
        }
    }
}
