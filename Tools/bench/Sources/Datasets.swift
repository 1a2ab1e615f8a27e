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

    /// One frame from its files to a binary PLY, as `cloudgen capture --source tum:DIR --ply F`
    /// runs it: open the source (index files, association, file checks), read and decode both PNGs,
    /// convert (depth to metres, color sampled at the depth size), back-project, write.
    static func frame(spec: String, output: String, laps: inout Laps) throws -> PointCloud {
        let cloud = try firstCloud(spec: spec, laps: &laps, openStage: "open", readStage: "decode")
        try writeCloud(cloud, to: output, format: .ply(.binary))
        laps.lap("write")
        return cloud
    }

    /// The first frame of `spec` as a camera-frame cloud, as `capture` makes it: open the source,
    /// read and decode the frame, convert (color sampled at the depth size), back-project. With
    /// `openStage` nil, opening is timed together with the read as `readStage`.
    static func firstCloud(spec: String, laps: inout Laps, openStage: String?, readStage: String) throws -> PointCloud {
        let source = try SourceSpec(parsing: spec).open()
        if let openStage { laps.lap(openStage) }
        guard let captured = try source.nextFrame() else { throw CloudError.io("\(spec): the source delivered no frame") }
        laps.lap(readStage)
        let frame = try RGBDFrame(decoding: captured, origin: source.name, colorAtDepthResolution: true)
        laps.lap("convert")
        let cloud = try BackProjection().run(frame).cloud
        laps.lap("backproject")
        return cloud
    }

    /// A posed sequence fused into one world-frame cloud and written as one binary PLY, as
    /// `cloudgen capture --fuse` runs it: per frame acquire, convert, back-project, move by the
    /// frame's pose, append; then one write. `acquire` names the stage that delivers a frame
    /// ("decode" for files, "simulate" for the simulated camera).
    static func fusedSequence(spec: String, acquire: String, output: String, laps: inout Laps) throws -> (cloud: PointCloud, frames: Int) {
        let source = try SourceSpec(parsing: spec).open()
        laps.lap("open")
        var positions: [Float] = []
        var colors: [UInt8] = []
        var frames = 0
        while let captured = try source.nextFrame() {
            laps.lap(acquire)
            let frame = try RGBDFrame(decoding: captured, origin: source.name, colorAtDepthResolution: true)
            laps.lap("convert")
            var cloud = try BackProjection().run(frame).cloud
            laps.lap("backproject")
            guard let pose = frame.pose, let frameColors = cloud.colors else {
                throw CloudError.badInput("\(spec): frame \(frames) has no pose or no color, and the benchmark fuses colored posed frames")
            }
            pose.transform(positions: &cloud.positions)
            laps.lap("transform")
            // As `capture --fuse` does: the first frame's arrays are taken over, later ones appended.
            if positions.isEmpty {
                (positions, colors) = (cloud.positions, frameColors)
            } else {
                positions += cloud.positions
                colors += frameColors
            }
            laps.lap("concatenate")
            frames += 1
        }
        // The call that found the end of the sequence.
        laps.lap(acquire)
        let fused = PointCloud(positions: positions, colors: colors)
        try writeCloud(fused, to: output, format: .ply(.binary))
        laps.lap("write")
        return (fused, frames)
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
        let tumTiming = try measureStages(runs: runs, warmup: warmup) { laps in
            tumPoints = try frame(spec: tumSpec, output: tumPly, laps: &laps).count
            return tumPoints
        }
        results["tum_frame"] = PipelineResult(
            source: tumSpec, frames: 1, points: tumPoints,
            bytes: fileSize(tumPly), timing: tumTiming)

        let sequences = [
            ("redwood_sequence", "redwood:\(data.path)", "decode", "redwood.ply", runs, warmup),
            // The simulated camera's orbit has no Open3D counterpart (Open3D reads no such source):
            // our throughput alone, with the frames rendered rather than decoded. Rendering takes
            // seconds per run, so a few runs do: the figure is for scale, not for a ratio.
            ("synthetic_orbit", "synthetic:path=orbit,frames=24", "simulate", "orbit.ply", min(runs, 3), min(warmup, 1))
        ]
        for (key, spec, acquire, file, runs, warmup) in sequences {
            let ply = out.appendingPathComponent(file).path
            var last = (points: 0, frames: 0)
            let timing = try measureStages(runs: runs, warmup: warmup) { laps in
                let (cloud, frames) = try fusedSequence(spec: spec, acquire: acquire, output: ply, laps: &laps)
                last = (cloud.count, frames)
                return cloud.count
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
