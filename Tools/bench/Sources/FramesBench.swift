// `cloudgen-bench [frames] WORKDIR [--runs N] [--warmup N] [--data DIR [--grabber DIR]]`: times
// cloudgen's frame stages on the simulated camera's frames and exports the same inputs for
// Tools/bench/open3d_bench.py, so that `Tools/bench/run` can put both side by side. With --data
// (Open3D's sample RGBD folder, ../shared/data/open3d-rgbd) it also times real files to binary PLY
// through `capture`'s own pipeline: the TUM frame, and the Redwood sequence fused by its trajectory.
// With --grabber (the PCL grabber recordings, ../shared/data/pcl-grabber) as well, the cleaning
// pipeline (voxel, outlier removal, normals) runs on the grabber frame and the TUM frame.

import ArgumentParser
import CloudCapture
import CloudCore
import CloudFiles
import CloudPCL
import Foundation

struct FrameResult: Codable {
    var spec: String
    var depth: [Int]
    var color: [Int]
    var points: Int
    var validPixels: Int
    /// RGBDFrame(decoding:colorAtDepthResolution: true), as `capture` runs it: raw depth plane ->
    /// metres, and the color pixels the depth pixels sample -> RGB8 (all of them for A, whose color
    /// is at the depth size; one in 7.5 x 7.5 of B's YUV 4:2:0).
    var convert: Timing
    /// Its two halves, to tell where the time goes.
    var convertDepthOnly: Timing
    var convertColorOnly: Timing
    var backproject: Timing
    /// convert + backproject in one go: raw frame to cloud.
    var frameToCloud: Timing
}

struct Report: Codable {
    var build: String
    var runs: Int
    var warmup: Int
    var frames: [String: FrameResult]
    var writesA: [String: Timing]
    /// With --data: files to binary PLY end to end (tum_frame, redwood_sequence), and the simulated
    /// orbit fused the same way (synthetic_orbit, ours alone).
    var pipelines: [String: PipelineResult]?
    /// With --data and --grabber: frame -> voxel -> SOR -> normals -> PLY (grabber_frame, tum_frame).
    var filterPipelines: [String: FilterPipelineResult]?
}

/// The two simulated frames: a Kinect-class frame (16-bit millimetres, color at the depth size)
/// and a phone LiDAR frame (Float16 metres at 256x192, color at 1920x1440).
let frameSpecs = [
    ("A", "synthetic:depth=640x480,color=640x480,format=mm16,noise=1"),
    ("B", "synthetic:depth=256x192,color=1920x1440,format=depth16,noise=1")
]

func benchFrame(_ spec: String, workdir: URL, name: String, runs: Int, warmup: Int) throws -> (FrameResult, PointCloud) {
    guard let captured = try SourceSpec(parsing: spec).open().nextFrame() else {
        throw CloudError.io("\(spec): the source delivered no frame")
    }
    let origin = "bench \(name)"
    let frame = try RGBDFrame(decoding: captured, origin: origin)
    let projector = BackProjection()
    let (cloud, counts) = try projector.run(frame)
    try Export.write(
        spec: spec, captured: captured, frame: frame, cloud: cloud,
        to: workdir.appendingPathComponent(name))

    let convert = try measure(runs: runs, warmup: warmup) {
        try RGBDFrame(decoding: captured, origin: origin, colorAtDepthResolution: true).depth.width
    }
    let d = captured.depth
    let depthOnly = try measure(runs: runs, warmup: warmup) {
        try d.data.withUnsafeBytes {
            try DepthMap(
                raw: $0, width: d.width, height: d.height, encoding: d.encoding,
                bytesPerRow: d.bytesPerRow, origin: origin
            ).width
        }
    }
    let colorOnly = try measure(runs: runs, warmup: warmup) {
        guard let c = captured.color else { return 0 }
        return try ColorImage(decoding: c, sampledAt: d.width, height: d.height, origin: origin).width
    }
    var backproject = try measure(runs: runs, warmup: warmup) { try projector.run(frame).cloud.count }
    backproject.pointsPerS = Double(cloud.count) / backproject.medianS
    let frameToCloud = try measure(runs: runs, warmup: warmup) {
        try projector.run(RGBDFrame(decoding: captured, origin: origin, colorAtDepthResolution: true)).cloud.count
    }
    let result = FrameResult(
        spec: spec, depth: [d.width, d.height],
        color: [captured.color?.width ?? 0, captured.color?.height ?? 0],
        points: counts.points, validPixels: counts.valid,
        convert: convert, convertDepthOnly: depthOnly, convertColorOnly: colorOnly,
        backproject: backproject, frameToCloud: frameToCloud)
    return (result, cloud)
}

func benchWrites(_ cloud: PointCloud, workdir: URL, runs: Int, warmup: Int) throws -> [String: Timing] {
    let out = workdir.appendingPathComponent("cloudgen-out")
    try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    let cases: [(String, String, CloudFileFormat)] = [
        ("ply_binary", "a.ply", .ply(.binary)),
        ("pcd_binary", "a.pcd", .pcd(.binary)),
        ("pcd_binary_compressed", "a-compressed.pcd", .pcd(.compressed))
    ]
    var results: [String: Timing] = [:]
    for (key, file, format) in cases {
        let path = out.appendingPathComponent(file).path
        var t = try measure(runs: runs, warmup: warmup) {
            try writeCloud(cloud, to: path, format: format)
            return 1
        }
        let size = fileSize(path)
        t.bytes = size
        t.mbPerS = Double(size) / 1e6 / t.medianS
        results[key] = t
    }
    return results
}

struct FramesBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "frames", abstract: "The frame stages, and with --data the real-file pipelines, beside Open3D's.")

    @Argument(help: "Where the inputs for Open3D's side and the written files go.")
    var workdir: String

    @OptionGroup var counts: RunCounts

    @Option(help: "Open3D's sample RGBD folder (../shared/data/open3d-rgbd): time real files to binary PLY.")
    var data: String?

    @Option(help: "The PCL grabber recordings (../shared/data/pcl-grabber): time the cleaning pipeline (needs --data).")
    var grabber: String?

    func validate() throws {
        if grabber != nil && data == nil { throw ValidationError("--grabber goes with --data (the TUM frame comes from there)") }
    }

    func run() throws {
        let (runs, warmup) = (counts.runs, counts.warmup)
        try printReport {
            let workdir = URL(fileURLWithPath: workdir, isDirectory: true)
            try FileManager.default.createDirectory(at: workdir, withIntermediateDirectories: true)
            var frames: [String: FrameResult] = [:]
            var clouds: [String: PointCloud] = [:]
            for (name, spec) in frameSpecs {
                (frames[name], clouds[name]) = try benchFrame(spec, workdir: workdir, name: name, runs: runs, warmup: warmup)
            }
            let data = data.map { URL(fileURLWithPath: $0, isDirectory: true) }
            return Report(
                build: build, runs: runs, warmup: warmup, frames: frames,
                writesA: try benchWrites(clouds["A"]!, workdir: workdir, runs: runs, warmup: warmup),
                pipelines: try data.map { try DatasetBench.run(data: $0, workdir: workdir, runs: runs, warmup: warmup) },
                filterPipelines: try grabber.map {
                    try FilterPipelineBench.run(
                        grabber: URL(fileURLWithPath: $0, isDirectory: true), data: data!, workdir: workdir, runs: runs, warmup: warmup)
                })
        }
    }
}
