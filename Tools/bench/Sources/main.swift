// cloudgen-bench: times cloudgen's frame stages on the simulated camera's frames and exports the
// same inputs for Tools/bench/open3d_bench.py, so that `Tools/bench/run` can put both side by side.
// With --data (Open3D's sample RGBD folder, ../shared/data/open3d-rgbd) it also times real files
// to binary PLY: the TUM frame, and the Redwood sequence fused by its trajectory. With --grabber
// (the PCL grabber recordings, ../shared/data/pcl-grabber) as well, the cleaning pipeline (voxel,
// outlier removal, normals) runs on the grabber frame and the TUM frame.
//
// Usage: cloudgen-bench WORKDIR [--runs N] [--warmup N] [--data DIR [--grabber DIR]]
// Prints one JSON object on stdout. Build with -c release: debug timings mean nothing.

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

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("cloudgen-bench: \(message)\n".utf8))
    exit(status)
}

/// The two frames of the issue: a Kinect-class frame (16-bit millimetres, color at the depth size)
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

// MARK: Command line

// `cloudgen-bench render ...`: the renderer's own benchmark (RenderBench.swift); `files ...`:
// reading and writing cloud files (FilesBench.swift).
if CommandLine.arguments.dropFirst().first == "render" {
    RenderBench.main(Array(CommandLine.arguments.dropFirst(2)))
}
if CommandLine.arguments.dropFirst().first == "files" {
    FilesBench.main(Array(CommandLine.arguments.dropFirst(2)))
}

var arguments = Array(CommandLine.arguments.dropFirst())
var runs = 30
var warmup = 3
var workdirPath: String?
var dataPath: String?
var grabberPath: String?
let usage = "usage: cloudgen-bench WORKDIR [--runs N] [--warmup N] [--data DIR [--grabber DIR]]"
while !arguments.isEmpty {
    let a = arguments.removeFirst()
    switch a {
    case "--runs", "--warmup":
        guard let v = arguments.first.flatMap({ Int($0) }), v >= (a == "--runs" ? 1 : 0) else {
            fail("\(a) needs a count (--runs at least 1)", status: 2)
        }
        arguments.removeFirst()
        if a == "--runs" { runs = v } else { warmup = v }
    case "--data":
        guard let v = arguments.first, !v.hasPrefix("-") else { fail("--data needs a folder", status: 2) }
        arguments.removeFirst()
        dataPath = v
    case "--grabber":
        guard let v = arguments.first, !v.hasPrefix("-") else { fail("--grabber needs a folder", status: 2) }
        arguments.removeFirst()
        grabberPath = v
    case "-h", "--help":
        print(usage)
        exit(0)
    default:
        guard workdirPath == nil, !a.hasPrefix("-") else { fail("unexpected argument '\(a)'", status: 2) }
        workdirPath = a
    }
}
guard let workdirPath else { fail(usage, status: 2) }
if grabberPath != nil && dataPath == nil { fail("--grabber goes with --data (the TUM frame comes from there)", status: 2) }

#if DEBUG
let build = "debug"
FileHandle.standardError.write(Data("cloudgen-bench: debug build; these timings say nothing about release speed\n".utf8))
#else
let build = "release"
#endif

do {
    let workdir = URL(fileURLWithPath: workdirPath, isDirectory: true)
    try FileManager.default.createDirectory(at: workdir, withIntermediateDirectories: true)
    var frames: [String: FrameResult] = [:]
    var cloudA: PointCloud?
    for (name, spec) in frameSpecs {
        let (result, cloud) = try benchFrame(spec, workdir: workdir, name: name, runs: runs, warmup: warmup)
        frames[name] = result
        if name == "A" { cloudA = cloud }
    }
    let writes = try benchWrites(cloudA!, workdir: workdir, runs: runs, warmup: warmup)
    let pipelines = try dataPath.map {
        try DatasetBench.run(data: URL(fileURLWithPath: $0, isDirectory: true), workdir: workdir, runs: runs, warmup: warmup)
    }
    let filterPipelines = try grabberPath.map {
        try FilterPipelineBench.run(
            grabber: URL(fileURLWithPath: $0, isDirectory: true),
            data: URL(fileURLWithPath: dataPath!, isDirectory: true),
            workdir: workdir, runs: runs, warmup: warmup)
    }
    let report = Report(
        build: build, runs: runs, warmup: warmup, frames: frames, writesA: writes, pipelines: pipelines,
        filterPipelines: filterPipelines)
    FileHandle.standardOutput.write(try benchJSON(report))
    FileHandle.standardOutput.write(Data("\n".utf8))
} catch let error as CloudError {
    fail(error.message, status: error.exitStatus)
} catch {
    fail("\(error)", status: 3)
}
