import CloudCore
import Foundation
import SharedTestData
import XCTest

@testable import CloudImages
@testable import SafeIO

/// Test data and checks shared by the image tests. Members of one namespace, because other test
/// files of this target (intrinsics, datasets) bring their own helpers.
enum ImageFixtures {
    /// The path of a file under ../shared/data; fails the test when it is missing.
    static func path(_ relative: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try SharedData.url(relative, file: file, line: line).path
    }

    /// A fresh folder for one test; the caller removes it.
    static func scratchFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("cloudio-image-tests-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// What a reference decoder (Open3D, or numpy over the raw samples) made of a file: the sum of
    /// all samples, a position-weighted sum (sample i weighs i % 251 + 1, so that swapped bytes,
    /// channels or rows change it) and the samples of pixels at `probes`, all computed in Python.
    struct Reference {
        var width = 640, height = 480
        var channels: Int
        var bitDepth: Int
        var sum: Int
        var weightedSum: Int
        var probeSamples: [[Int]]
    }

    /// (y, x) of the probed pixels.
    static let probes = [(0, 0), (240, 320), (100, 200), (479, 639), (300, 50)]

    static func fingerprint(_ image: DecodedImage) -> (sum: Int, weightedSum: Int) {
        func sums<T: BinaryInteger>(_ values: [T]) -> (Int, Int) {
            var sum = 0
            var weighted = 0
            for (i, v) in values.enumerated() {
                sum += Int(v)
                weighted += Int(v) * (i % 251 + 1)
            }
            return (sum, weighted)
        }
        switch image.samples {
        case .uint8(let values): return sums(values)
        case .uint16(let values): return sums(values)
        }
    }

    static func pixel(_ image: DecodedImage, y: Int, x: Int) -> [Int] {
        let samples = ((y * image.width + x) * image.channels)..<((y * image.width + x + 1) * image.channels)
        switch image.samples {
        case .uint8(let values): return values[samples].map(Int.init)
        case .uint16(let values): return values[samples].map(Int.init)
        }
    }

    static func assertMatches(
        _ image: DecodedImage, _ reference: Reference, _ name: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(image.width, reference.width, "\(name) width", file: file, line: line)
        XCTAssertEqual(image.height, reference.height, "\(name) height", file: file, line: line)
        XCTAssertEqual(image.channels, reference.channels, "\(name) channels", file: file, line: line)
        XCTAssertEqual(image.bitDepth, reference.bitDepth, "\(name) bit depth", file: file, line: line)
        guard image.width == reference.width, image.height == reference.height, image.channels == reference.channels else { return }
        let (sum, weighted) = fingerprint(image)
        XCTAssertEqual(sum, reference.sum, "\(name) sum of samples", file: file, line: line)
        XCTAssertEqual(weighted, reference.weightedSum, "\(name) weighted sum of samples", file: file, line: line)
        for ((y, x), expected) in zip(probes, reference.probeSamples) {
            XCTAssertEqual(pixel(image, y: y, x: x), expected, "\(name) pixel (x \(x), y \(y))", file: file, line: line)
        }
    }
}

final class FixtureImageTests: XCTestCase {
    /// The format comes from the first bytes: every fixture is recognised as what it is.
    func testSniffsEveryFixtureFormat() throws {
        let expected: [(String, ImageFormat)] = [
            ("open3d-rgbd/depth/00000.png", .png),
            ("open3d-rgbd/color/00000.jpg", .jpeg),
            ("open3d-rgbd/other_formats/NYU_depth.pgm", .pnm),
            ("open3d-rgbd/other_formats/NYU_color.ppm", .pnm),
            ("pcl-grabber/frame_20121214T142255.814212_depth.tiff", .tiff),
            ("pcl-grabber/frame_20121214T142255.814212_rgb.pclzf", .pclzf)
        ]
        for (relative, format) in expected {
            let bytes = try InputFile.readAll(try ImageFixtures.path(relative))
            XCTAssertEqual(bytes.withUnsafeBytes { ImageFormat.sniff($0) }, format, relative)
        }
        XCTAssertNil([UInt8]("GIF89a".utf8).withUnsafeBytes { ImageFormat.sniff($0) })
        XCTAssertNil([UInt8]("P5".utf8).withUnsafeBytes { ImageFormat.sniff($0) }, "P5 without whitespace is no header")
    }
}
