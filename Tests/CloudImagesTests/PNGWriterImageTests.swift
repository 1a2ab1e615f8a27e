import CloudCore
import CloudImages
import Foundation
import SharedTestData
import XCTest

/// PNG writing: exact round trips through our reader (Open3D reading the same files was checked
/// by hand, see the report), atomic replacement, and refusals that leave nothing behind.
final class PNGWriterImageTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = try ImageFixtures.scratchFolder()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    private func folderContents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    func testRGBRoundTripIsExact() throws {
        var state: UInt32 = 1
        let (w, h) = (37, 23)
        let rgb = (0..<(w * h * 3)).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(state >> 24)
        }
        let image = ColorImage(width: w, height: h, rgb: rgb)
        for level in [0, 1, 6, 9] {
            try PNGWriter.write(rgb: image, to: path("rgb\(level).png"), compressionLevel: level)
            XCTAssertEqual(
                try ImageFile.read(path("rgb\(level).png")),
                DecodedImage(width: w, height: h, channels: 3, samples: .uint8(rgb)), "level \(level)")
        }
        let stored = try FileManager.default.attributesOfItem(atPath: path("rgb0.png"))[.size] as? Int ?? 0
        XCTAssertGreaterThan(stored, w * h * 3, "level 0 stores the samples uncompressed")
        XCTAssertEqual(try folderContents(), ["rgb0.png", "rgb1.png", "rgb6.png", "rgb9.png"], "no temporary files left")
    }

    func testGray16RoundTripIsExact() throws {
        // Values whose bytes differ, so that a byte-order mistake cannot pass.
        var values: [UInt16] = [0, 1, 255, 256, 0x1234, 0xFF00, 65535]
        var state: UInt32 = 9
        while values.count < 31 * 17 {
            state = state &* 1_664_525 &+ 1_013_904_223
            values.append(UInt16(state >> 16))
        }
        try PNGWriter.write(gray16: values, width: 31, height: 17, to: path("depth.png"))
        XCTAssertEqual(
            try ImageFile.read(path("depth.png")),
            DecodedImage(width: 31, height: 17, channels: 1, samples: .uint16(values)))
    }

    /// A real depth frame and a real color frame written back out read identically.
    func testRealFramesRoundTrip() throws {
        let depthPath = try ImageFixtures.path("open3d-rgbd/depth/00000.png")
        let depth = try ImageFile.read(depthPath)
        guard case .uint16(let millimetres) = depth.samples else { return XCTFail("depth is not 16-bit") }
        try PNGWriter.write(gray16: millimetres, width: depth.width, height: depth.height, to: path("depth.png"))
        XCTAssertTrue(try ImageFile.read(path("depth.png")) == depth)

        let colorPath = try ImageFixtures.path("open3d-rgbd/color/00000.jpg")
        let color = try ImageFile.read(colorPath).colorImage(origin: colorPath)
        try PNGWriter.write(rgb: color, to: path("color.png"))
        XCTAssertEqual(try ImageFile.read(path("color.png")).colorImage(origin: "color.png"), color)
    }

    func testReplacesAnExistingFileWhole() throws {
        try Data(repeating: 7, count: 100_000).write(to: URL(fileURLWithPath: path("old.png")))
        try PNGWriter.write(gray16: [1, 2, 3, 4], width: 2, height: 2, to: path("old.png"))
        XCTAssertEqual(try ImageFile.read(path("old.png")), DecodedImage(width: 2, height: 2, channels: 1, samples: .uint16([1, 2, 3, 4])))
        XCTAssertEqual(try folderContents(), ["old.png"])
    }

    func testRefusalsLeaveNothingBehind() throws {
        let missingFolder = folder.appendingPathComponent("no/such/folder/x.png").path
        XCTAssertThrowsError(try PNGWriter.write(gray16: [1], width: 1, height: 1, to: missingFolder)) { error in
            XCTAssertEqual((error as? CloudError)?.kind, .deviceOrIO)
            XCTAssertTrue((error as? CloudError)?.message.hasPrefix(missingFolder + ": ") == true, "\(error)")
        }
        assertBadInput(naming: path("short.png"), containing: "needs 6 samples") {
            try PNGWriter.write(gray16: [1, 2, 3], width: 3, height: 2, to: path("short.png"))
        }
        assertBadInput(naming: path("level.png"), containing: "compression level") {
            try PNGWriter.write(gray16: [1], width: 1, height: 1, to: path("level.png"), compressionLevel: 10)
        }
        assertBadInput(naming: path("wide.png"), containing: "20000x1") {
            try PNGWriter.write(gray16: Array(repeating: 0, count: 20000), width: 20000, height: 1, to: path("wide.png"))
        }
        XCTAssertEqual(try folderContents(), [])
    }
}
