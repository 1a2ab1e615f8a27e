// `cloudgen-bench depth-codecs DATA [--runs N] [--warmup N]`: the depth codings of stream frames
// on real 640x480 depth images (Open3D's five Redwood frames and its TUM frame, PCL's grabber
// frame): bytes per frame, and encoding and decoding time, for 16-bit PNG (what a client writes
// with any image library today: the baseline), RVL and zstd. Prints one JSON object.

import ArgumentParser
import CloudCore
import CloudImages
import Foundation

struct DepthCodecBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "depth-codecs", abstract: "Stream frames' depth codings (PNG, RVL, zstd) on real depth images.")

    struct Coding: Codable {
        /// Mean bytes per frame over the frames.
        var bytes: Double
        /// Per frame, median (min) over the runs of all frames.
        var encode: Timing
        var decode: Timing
    }

    struct Report: Codable {
        var build: String
        var frames: [String]
        var rawBytes: Int
        var codings: [String: Coding]
    }

    @Argument(help: "../shared/data.")
    var data: String

    @OptionGroup var counts: RunCounts

    func run() throws {
        let (runs, warmup) = (counts.runs, counts.warmup)
        try printReport {
            let names =
                (0..<5).map { "open3d-rgbd/depth/0000\($0).png" } + [
                    "open3d-rgbd/other_formats/TUM_depth.png", "pcl-grabber/frame_20121214T142255.814212_depth.tiff"
                ]
            let frames = try names.map { name -> [UInt16] in
                let image = try ImageFile.read(URL(fileURLWithPath: data).appendingPathComponent(name).path)
                guard case .uint16(let depth) = image.samples, image.width == 640, image.height == 480 else {
                    throw CloudError.badInput(.file(name), "not 640x480 16-bit depth")
                }
                return depth
            }
            var codings: [String: Coding] = [:]
            for codec in DepthFrameCodec.allCases {
                let coded = try frames.map { try codec.encode($0, width: 640, height: 480, origin: codec.rawValue) }
                var encode = try measure(runs: runs, warmup: warmup) {
                    try frames.reduce(0) { $0 + (try codec.encode($1, width: 640, height: 480, origin: codec.rawValue).count) }
                }
                var decode = try measure(runs: runs, warmup: warmup) {
                    try coded.reduce(0) { $0 + (try codec.decode($1, width: 640, height: 480, origin: codec.rawValue).count) }
                }
                for timing in [\Timing.medianS, \Timing.minS] {
                    encode[keyPath: timing] /= Double(frames.count)
                    decode[keyPath: timing] /= Double(frames.count)
                }
                codings[codec.rawValue] = Coding(
                    bytes: Double(coded.map(\.count).reduce(0, +)) / Double(frames.count), encode: encode, decode: decode)
            }
            return Report(build: build, frames: names, rawBytes: 640 * 480 * 2, codings: codings)
        }
    }
}
