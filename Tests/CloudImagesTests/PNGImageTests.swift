import CloudCore
import CloudImages
import XCTest

/// PNG decoding through libpng, against Open3D 0.20's decode of the same files
/// (`np.asarray(o3d.io.read_image(path))`, sums computed with numpy).
final class PNGImageTests: XCTestCase {
    func testOpen3DDepthFrameIsExact() throws {
        let image = try ImageFile.read(try ImageFixtures.path("open3d-rgbd/depth/00000.png"))
        ImageFixtures.assertMatches(
            image,
            .init(
                channels: 1, bitDepth: 16, sum: 479_199_333, weightedSum: 60_389_089_928,
                probeSamples: [[0], [2195], [1682], [0], [2422]]), "00000.png")
    }

    func testTUMDepthAndColor() throws {
        let depth = try ImageFile.read(try ImageFixtures.path("open3d-rgbd/other_formats/TUM_depth.png"))
        ImageFixtures.assertMatches(
            depth,
            .init(
                channels: 1, bitDepth: 16, sum: 3_074_716_315, weightedSum: 387_303_759_035,
                probeSamples: [[0], [10920], [0], [0], [7615]]), "TUM_depth.png")
        let color = try ImageFile.read(try ImageFixtures.path("open3d-rgbd/other_formats/TUM_color.png"))
        ImageFixtures.assertMatches(
            color,
            .init(
                channels: 3, bitDepth: 8, sum: 101_558_687, weightedSum: 12_793_298_070,
                probeSamples: [
                    [158, 161, 157], [252, 252, 250], [101, 106, 118],
                    [117, 121, 130], [73, 40, 61]
                ]), "TUM_color.png")
    }

    /// SUN RGB-D stores depth with its bits rotated; the decoder returns the stored values as they are.
    func testSUNDepthKeepsStoredValues() throws {
        let depth = try ImageFile.read(try ImageFixtures.path("open3d-rgbd/other_formats/SUN_depth.png"))
        ImageFixtures.assertMatches(
            depth,
            .init(
                channels: 1, bitDepth: 16, sum: 5_891_375_813, weightedSum: 742_054_005_715,
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

    /// Layouts the fixtures do not have, written by hand: libpng expands palettes and low bit
    /// depths, keeps alpha and 16-bit values exact, and de-interlaces Adam7.
    func testPaletteLowBitDepthAlphaAndInterlace() throws {
        // 2-bit palette, 5x2: indices 0 1 2 3 0 / 3 2 1 0 3, packed 4 to a byte, rows padded.
        let palette: [UInt8] = [0, 0, 0, 255, 0, 0, 0, 255, 0, 10, 20, 30]
        let indexed = PNGBytes.image(
            width: 5, height: 2, bitDepth: 2, colorType: 3,
            rows: [[0b0001_1011, 0b0000_0000], [0b1110_0100, 0b1100_0000]], palette: palette)
        let expanded = [0, 1, 2, 3, 0, 3, 2, 1, 0, 3].flatMap { palette[(3 * $0)..<(3 * $0 + 3)] }
        XCTAssertEqual(
            try ImageFile.decode(indexed, origin: "palette.png"),
            DecodedImage(width: 5, height: 2, channels: 3, samples: .uint8(expanded)))

        // 1-bit gray scales to 0 and 255.
        let bits = PNGBytes.image(width: 10, height: 1, bitDepth: 1, colorType: 0, rows: [[0b1010_0000, 0b0100_0000]])
        XCTAssertEqual(
            try ImageFile.decode(bits, origin: "bits.png"),
            DecodedImage(width: 10, height: 1, channels: 1, samples: .uint8([255, 0, 255, 0, 0, 0, 0, 0, 0, 255])))

        let grayAlpha = PNGBytes.image(width: 2, height: 1, bitDepth: 8, colorType: 4, rows: [[7, 200, 9, 0]])
        XCTAssertEqual(
            try ImageFile.decode(grayAlpha, origin: "ga.png"),
            DecodedImage(width: 2, height: 1, channels: 2, samples: .uint8([7, 200, 9, 0])))

        // 16-bit RGBA: big-endian in the file, host order out.
        let rgba = PNGBytes.image(width: 1, height: 1, bitDepth: 16, colorType: 6, rows: [[0x12, 0x34, 0xAB, 0xCD, 0x00, 0x01, 0xFF, 0x00]])
        XCTAssertEqual(
            try ImageFile.decode(rgba, origin: "rgba.png"),
            DecodedImage(width: 1, height: 1, channels: 4, samples: .uint16([0x1234, 0xABCD, 0x0001, 0xFF00])))

        // A palette with transparency (tRNS): the alpha is dropped like a tRNS chunk's everywhere
        // else, and the pixels are the palette's colors. Was refused ("row size differs"): found
        // by the fuzz seeds (Tools/fuzz).
        let transparent = PNGBytes.image(
            width: 5, height: 2, bitDepth: 2, colorType: 3,
            rows: [[0b0001_1011, 0b0000_0000], [0b1110_0100, 0b1100_0000]], palette: palette,
            beforeData: PNGBytes.chunk("tRNS", [0, 128]))
        XCTAssertEqual(
            try ImageFile.decode(transparent, origin: "palette-trns.png"),
            DecodedImage(width: 5, height: 2, channels: 3, samples: .uint8(expanded)))
        // Gray with a transparent level keeps one channel too.
        let grayKey = PNGBytes.image(
            width: 10, height: 1, bitDepth: 1, colorType: 0, rows: [[0b1010_0000, 0b0100_0000]],
            beforeData: PNGBytes.chunk("tRNS", [0, 1]))
        XCTAssertEqual(
            try ImageFile.decode(grayKey, origin: "gray-trns.png"),
            DecodedImage(width: 10, height: 1, channels: 1, samples: .uint8([255, 0, 255, 0, 0, 0, 0, 0, 0, 255])))

        let pixels = (0..<(9 * 7)).map { UInt8($0 * 3) }
        let interlaced = PNGBytes.adam7Gray8(width: 9, height: 7, pixels: pixels)
        XCTAssertEqual(
            try ImageFile.decode(interlaced, origin: "adam7.png"),
            DecodedImage(width: 9, height: 7, channels: 1, samples: .uint8(pixels)))
    }
}

/// PNG chunks by hand, with their CRC-32, for headers no encoder would write.
enum PNGBytes {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)]
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(crc32(body))
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// A zlib stream of stored (uncompressed) deflate blocks.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let n = min(65535, data.count - start)
            let final: UInt8 = start + n == data.count ? 1 : 0
            out += [final, UInt8(n & 255), UInt8(n >> 8), UInt8(~n & 255), UInt8((~n >> 8) & 255)]
            out += data[start..<(start + n)]
            start += n
        } while start < data.count
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return out + be32(b << 16 | a)
    }

    /// A whole PNG from packed rows (filter type 0 is prepended to each).
    /// `beforeData`: chunks placed after PLTE and before IDAT (tRNS).
    static func image(
        width: Int, height: Int, bitDepth: UInt8, colorType: UInt8, rows: [[UInt8]],
        palette: [UInt8]? = nil, interlaced: Bool = false, beforeData: [UInt8] = []
    ) -> [UInt8] {
        imageFromScanlines(
            width: width, height: height, bitDepth: bitDepth, colorType: colorType,
            scanlines: rows.flatMap { [0] + $0 }, palette: palette, interlaced: interlaced, beforeData: beforeData)
    }

    static func imageFromScanlines(
        width: Int, height: Int, bitDepth: UInt8, colorType: UInt8, scanlines: [UInt8],
        palette: [UInt8]? = nil, interlaced: Bool = false, beforeData: [UInt8] = []
    ) -> [UInt8] {
        let header = be32(UInt32(width)) + be32(UInt32(height)) + [bitDepth, colorType, 0, 0, interlaced ? 1 : 0]
        return signature + chunk("IHDR", header) + (palette.map { chunk("PLTE", $0) } ?? []) + beforeData
            + chunk("IDAT", zlibStored(scanlines)) + chunk("IEND", [])
    }

    /// 8-bit gray in Adam7 order: seven reduced images, each row with its filter byte.
    static func adam7Gray8(width: Int, height: Int, pixels: [UInt8]) -> [UInt8] {
        let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        var scanlines: [UInt8] = []
        for (x0, y0, dx, dy) in passes {
            let columns = Array(stride(from: x0, to: width, by: dx))
            guard !columns.isEmpty else { continue }
            for y in stride(from: y0, to: height, by: dy) {
                scanlines += [0] + columns.map { pixels[y * width + $0] }
            }
        }
        return imageFromScanlines(width: width, height: height, bitDepth: 8, colorType: 0, scanlines: scanlines, interlaced: true)
    }
}
