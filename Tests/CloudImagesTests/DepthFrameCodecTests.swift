import CloudCore
import CloudImages
import Foundation
import SharedTestData
import XCTest

/// The depth codings of stream frames on real depth images (Open3D's Redwood and TUM frames, PCL's
/// grabber frame): every coding gives back every value, and every way the data can lie is one
/// line of bad input.
final class DepthFrameCodecTests: XCTestCase {
    static func realDepth() throws -> [(name: String, depth: [UInt16], width: Int, height: Int)] {
        let files = [
            "open3d-rgbd/depth/00000.png", "open3d-rgbd/depth/00004.png", "open3d-rgbd/other_formats/TUM_depth.png",
            "pcl-grabber/frame_20121214T142255.814212_depth.tiff"
        ]
        return try files.map { file in
            let image = try ImageFile.read(SharedData.path(file))
            guard case .uint16(let samples) = image.samples, image.channels == 1 else { throw Pageless("\(file) is not 16-bit depth") }
            return (file, samples, image.width, image.height)
        }
    }

    func testEveryCodingGivesBackEveryValueOfRealFrames() throws {
        for (name, depth, width, height) in try Self.realDepth() {
            XCTAssertGreaterThan(depth.filter { $0 == 0 }.count, 0, "\(name) has pixels without depth")
            for codec in DepthFrameCodec.allCases {
                let coded = try codec.encode(depth, width: width, height: height, origin: name)
                XCTAssertEqual(try codec.decode(coded, width: width, height: height, origin: name), depth, "\(codec) \(name)")
                // Every coding is smaller than the raw 16-bit plane on these frames.
                XCTAssertLessThan(coded.count, depth.count * 2 * 3 / 4, "\(codec) \(name): \(coded.count) bytes")
            }
        }
    }

    /// The paper's layout, followed literally: runs of zeros and of values, zigzag deltas, 3-bit
    /// nibbles least significant first with a continuation bit, packed from a word's top.
    func testRVLsBytesAreTheNibblesOfTheRunsAndDeltas() throws {
        // 2 zeros, 2 values; 5 (delta 5, zigzag 10: nibbles 0xA 0x1) and 6 (delta 1, zigzag 2: 0x2).
        // The word 0x22A12000, stored little-endian.
        XCTAssertEqual(try DepthFrameCodec.rvl.encode([0, 0, 5, 6], width: 4, height: 1, origin: "x"), [0x00, 0x20, 0xA1, 0x22])
        // A fall in depth is a negative delta: no zeros, 2 values, 6 (zigzag 12: 0xC 0x1) then 3
        // (delta -3, zigzag 5): the word 0x02C15000.
        XCTAssertEqual(try DepthFrameCodec.rvl.decode([0x00, 0x50, 0xC1, 0x02], width: 2, height: 1, origin: "x"), [6, 3])
    }

    func testLyingDepthDataIsRefusedNamingIt() throws {
        let (_, depth, width, height) = try Self.realDepth()[0]
        let rvl = try DepthFrameCodec.rvl.encode(depth, width: width, height: height, origin: "frame")
        // Cut short, the last codes are missing: a value, or the count of a run, is not there.
        assertCloudError(.badInput, naming: "frame 9", containing: "at pixel") {
            try DepthFrameCodec.rvl.decode(Array(rvl.dropLast(4)), width: width, height: height, origin: "frame 9")
        }
        assertCloudError(.badInput, naming: "frame 9", containing: "goes on after") {
            try DepthFrameCodec.rvl.decode(rvl + [0, 0, 0, 0x10], width: width, height: height, origin: "frame 9")
        }
        assertCloudError(.badInput, naming: "frame 9", containing: "past the") {
            try DepthFrameCodec.rvl.decode(rvl, width: width / 2, height: height, origin: "frame 9")
        }
        assertCloudError(.badInput, naming: "frame 9", containing: "whole number of 32-bit words") {
            try DepthFrameCodec.rvl.decode(Array(rvl.dropLast()), width: width, height: height, origin: "frame 9")
        }

        let zstd = try DepthFrameCodec.zstd.encode(depth, width: width, height: height, origin: "frame")
        assertCloudError(.badInput, naming: "frame 9", containing: "where the image needs") {
            try DepthFrameCodec.zstd.decode(zstd, width: width, height: height - 1, origin: "frame 9")
        }
        assertCloudError(.badInput, naming: "frame 9", containing: "truncated") {
            try DepthFrameCodec.zstd.decode(Array(zstd.dropLast(9)), width: width, height: height, origin: "frame 9")
        }
        assertCloudError(.badInput, naming: "frame 9", containing: "after the zstd frame") {
            try DepthFrameCodec.zstd.decode(zstd + [0], width: width, height: height, origin: "frame 9")
        }
        assertCloudError(.badInput, naming: "frame 9", containing: "not a zstd frame") {
            try DepthFrameCodec.zstd.decode(rvl, width: width, height: height, origin: "frame 9")
        }

        let png = try DepthFrameCodec.png.encode(depth, width: width, height: height, origin: "frame")
        assertCloudError(.badInput, naming: "frame 9", containing: "where the frame says") {
            try DepthFrameCodec.png.decode(png, width: width + 1, height: height, origin: "frame 9")
        }
        assertCloudError(.badInput, naming: "frame 9", containing: "outside 1...16384") {
            try DepthFrameCodec.rvl.decode(rvl, width: 20000, height: 10, origin: "frame 9")
        }
    }
}

private struct Pageless: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
