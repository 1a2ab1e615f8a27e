import CloudCapture
import CloudCore
import Foundation

/// One pipeline from files (or the simulated camera) to a binary PLY, timed end to end and by stage.
struct PipelineResult: Codable {
    var source: String
    var frames: Int
    var points: Int
    /// The written PLY's size.
    var bytes: Int
    var timing: StagedTiming
}

/// What `open3d_bench.py` needs to run its side of the dataset pipelines on the same files, and
/// where our clouds are, so that it can compare them with its own point by point.
struct DatasetMeta: Codable {
    struct Frame: Codable {
        var colorFile: String
        var depthFile: String
        var cloudgenPly: String
    }

    struct Sequence: Codable {
        var directory: String
        var frames: Int
        var cloudgenPly: String
    }

    var tumFrame: Frame
    var redwood: Sequence
}

enum DatasetBench {
    /// A one-frame TUM sequence in `workdir/tum` around Open3D's TUM sample frame: copies of the two
    /// PNGs (so that both sides read the same files from the same disk) and the two index files a
    /// TUM download has. The color frame is listed 9.3 ms after the depth frame, inside the 20 ms the
    /// source pairs across, as the two unsynchronised cameras of a real sequence are.
    static func makeTUMFolder(data: URL, workdir: URL) throws -> (folder: URL, color: URL, depth: URL) {
        let folder = workdir.appendingPathComponent("tum")
        let fm = FileManager.default
        if fm.fileExists(atPath: folder.path) { try fm.removeItem(at: folder) }
        let (depthStamp, colorStamp) = ("1311868164.363181", "1311868164.372511")
        let color = folder.appendingPathComponent("rgb/\(colorStamp).png")
        let depth = folder.appendingPathComponent("depth/\(depthStamp).png")
        for (from, to) in [("TUM_color.png", color), ("TUM_depth.png", depth)] {
            try fm.createDirectory(at: to.deletingLastPathComponent(), withIntermediateDirectories: true)
            try fm.copyItem(at: data.appendingPathComponent("other_formats/\(from)"), to: to)
        }
        try "# color images\n# timestamp filename\n\(colorStamp) rgb/\(colorStamp).png\n"
            .write(to: folder.appendingPathComponent("rgb.txt"), atomically: true, encoding: .utf8)
        try "# depth maps\n# timestamp filename\n\(depthStamp) depth/\(depthStamp).png\n"
            .write(to: folder.appendingPathComponent("depth.txt"), atomically: true, encoding: .utf8)
        return (folder, color, depth)
    }

    /// Times the three pipelines; the two on real data also leave `datasets.json` for Open3D's side.
    static func run(data: URL, workdir: URL, runs: Int, warmup: Int) throws -> [String: PipelineResult] {
        let out = workdir.appendingPathComponent("cloudgen-out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        var results: [String: PipelineResult] = [:]

        let tum = try makeTUMFolder(data: data, workdir: workdir)
        let tumSpec = "tum:\(tum.folder.path)"
        let tumPly = out.appendingPathComponent("tum.ply").path
        var tumPoints = 0
        let tumTiming = try measureStages(runs: runs, warmup: warmup) {
            let outcome = try CaptureRun(spec: tumSpec, frames: 1, output: tumPly).run()
            tumPoints = outcome.points
            return (outcome.points, outcome.stages)
        }
        results["tum_frame"] = PipelineResult(
            source: tumSpec, frames: 1, points: tumPoints,
            bytes: fileSize(tumPly), timing: tumTiming)

        let sequences = [
            ("redwood_sequence", "redwood:\(data.path)", "redwood.ply", runs, warmup),
            // The simulated camera's orbit has no Open3D counterpart (Open3D reads no such source):
            // our throughput alone, with the frames rendered rather than decoded. Rendering takes
            // seconds per run, so a few runs do: the figure is for scale, not for a ratio.
            ("synthetic_orbit", "synthetic:path=orbit,frames=24", "orbit.ply", min(runs, 3), min(warmup, 1))
        ]
        for (key, spec, file, runs, warmup) in sequences {
            let ply = out.appendingPathComponent(file).path
            var last = (points: 0, frames: 0)
            let timing = try measureStages(runs: runs, warmup: warmup) {
                let outcome = try CaptureRun(spec: spec, fuse: true, output: ply).run()
                last = (outcome.points, outcome.frames)
                return (outcome.points, outcome.stages)
            }
            results[key] = PipelineResult(
                source: spec, frames: last.frames, points: last.points,
                bytes: fileSize(ply), timing: timing)
        }

        let meta = DatasetMeta(
            tumFrame: .init(colorFile: tum.color.path, depthFile: tum.depth.path, cloudgenPly: tumPly),
            redwood: .init(
                directory: data.path, frames: results["redwood_sequence"]!.frames,
                cloudgenPly: out.appendingPathComponent("redwood.ply").path))
        try benchJSON(meta).write(to: workdir.appendingPathComponent("datasets.json"))
        return results
    }
}
