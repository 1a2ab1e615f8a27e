import CloudCore
import Foundation
import SharedTestData
import XCTest

@testable import CloudImages
@testable import SafeIO

/// Broken files of every format: each read throws `badInput` with a one-line message that starts
/// with the file's path, and nothing crashes, hangs or allocates what a header claims.
final class BadInputImageTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = try ImageFixtures.scratchFolder()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func write(_ bytes: [UInt8], as name: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Real files cut in half. The TIFFs lose their directory (written at the end), the others
    /// their pixel data; the PCLZF header then disagrees with the file size.
    func testTruncatedRealFiles() throws {
        let files = [
            ("open3d-rgbd/depth/00000.png", "truncated"),
            ("open3d-rgbd/other_formats/TUM_color.png", "truncated"),
            ("open3d-rgbd/color/00000.jpg", "truncated"),
            ("open3d-rgbd/other_formats/SUN_color.jpg", "truncated"),
            ("open3d-rgbd/other_formats/NYU_depth.pgm", "truncated"),
            ("open3d-rgbd/other_formats/NYU_color.ppm", "truncated"),
            ("pcl-grabber/frame_20121214T142255.814212_depth.tiff", "TIFF"),
            ("pcl-grabber/frame_20121214T142255.814212_rgb.tiff", "TIFF"),
            ("pcl-grabber/frame_20121214T142255.814212_depth.pclzf", "truncated"),
            ("pcl-grabber/frame_20121214T142255.814212_rgb.pclzf", "truncated")
        ]
        for (relative, detail) in files {
            let bytes = try InputFile.readAll(try ImageFixtures.path(relative))
            let name = "half-" + (relative as NSString).lastPathComponent
            let path = try write(Array(bytes[0..<(bytes.count / 2)]), as: name)
            assertBadInput(naming: path, containing: detail) { try ImageFile.read(path) }
        }
    }

    /// A PNG whose image data ends just before IEND, and one with a damaged byte in its image data
    /// (libpng meets the damage in the inflated rows before the chunk's CRC at its end).
    func testPNGCutAfterPixelsOrCorrupted() throws {
        let bytes = try InputFile.readAll(try ImageFixtures.path("open3d-rgbd/depth/00000.png"))
        let noEnd = try write(Array(bytes.dropLast(12)), as: "no-iend.png")
        assertBadInput(naming: noEnd, containing: "truncated") { try ImageFile.read(noEnd) }
        var damaged = bytes
        damaged[bytes.count / 2] ^= 0x55
        let damagedPath = try write(damaged, as: "damaged.png")
        assertBadInput(naming: damagedPath, containing: "cannot decode PNG") { try ImageFile.read(damagedPath) }
    }

    /// A TIFF whose only strip is said to start 10 bytes before the end of the file.
    func testTIFFStripPastTheEnd() throws {
        let image = DecodedImage(width: 16, height: 8, channels: 1, samples: .uint16(Array(0..<128)))
        var file = TIFFFixture.make(image, TIFFFixture.Layout(rowsPerStrip: 8))
        TIFFFixture.patch(&file, tag: 273, value: file.count - 10, bytes: 4)
        let path = try write(file, as: "strip.tiff")
        assertBadInput(naming: path, containing: "strip") { try ImageFile.read(path) }
    }

    /// Headers that claim 100000 x 100000 pixels (20 GB of 16-bit samples) are refused from the
    /// header alone; the files themselves are a few dozen bytes.
    func testAbsurdDimensionsAreRefusedBeforeAllocation() throws {
        let png =
            PNGBytes.signature + PNGBytes.chunk("IHDR", PNGBytes.be32(100_000) + PNGBytes.be32(100_000) + [16, 0, 0, 0, 0])
            + PNGBytes.chunk("IDAT", [0x78, 0x9C, 0x03, 0x00]) + PNGBytes.chunk("IEND", [])
        let pngPath = try write(png, as: "huge.png")
        assertBadInput(naming: pngPath, containing: "100000x100000") { try ImageFile.read(pngPath) }

        let pgmPath = try write(Array("P5\n100000 100000\n65535\n".utf8) + [1, 2, 3, 4], as: "huge.pgm")
        assertBadInput(naming: pgmPath, containing: "100000x100000") { try ImageFile.read(pgmPath) }
    }

    func testGarbageEmptyMissingAndFolder() throws {
        var random = UInt64(12345)
        let garbage = (0..<4096).map { _ -> UInt8 in
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: random >> 56)
        }
        let garbagePath = try write(garbage, as: "garbage.png")
        assertBadInput(naming: garbagePath, containing: "not an image format") { try ImageFile.read(garbagePath) }

        // Right signatures, garbage after them: each library must fail cleanly.
        for (signature, name) in [
            (PNGBytes.signature, "sig.png"), ([0xFF, 0xD8, 0xFF], "sig.jpg"),
            (Array("II*\0".utf8), "sig.tiff"), (Array("PCLZF".utf8), "sig.pclzf"),
            (Array("P6 ".utf8), "sig.ppm")
        ] {
            let path = try write(signature + garbage, as: name)
            assertBadInput(naming: path) { try ImageFile.read(path) }
        }

        let emptyPath = try write([], as: "empty.jpg")
        assertBadInput(naming: emptyPath, containing: "empty") { try ImageFile.read(emptyPath) }

        let missing = folder.appendingPathComponent("no-such-file.png").path
        assertBadInput(naming: missing, containing: "no such file") { try ImageFile.read(missing) }

        assertBadInput(naming: folder.path, containing: "is a folder, not a file") { try ImageFile.read(folder.path) }
    }
}
