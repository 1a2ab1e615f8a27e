// `cloudgen-bench render WORKDIR CLOUDGEN [--cloud FILE.ply] [--runs N] [--warmup N]`: the renderer on
// a cloud of over a million points drawn at 1280x720, stage by stage, and the whole `cloudgen render`
// process on the same binary PLY, with the stages that process reports. The cloud is FILE.ply
// (Tools/bench/render passes the five Redwood frames fused) or else one frame of the simulated room
// at 1280x800. Puts the PLY in WORKDIR for Tools/bench/open3d_render_bench.py and prints one JSON
// object.

import ArgumentParser
import CloudCapture
import CloudCore
import CloudFiles
import CloudImages
import CloudPCL
import CloudRender
import Foundation

#if canImport(Glibc)
import Glibc
#endif

struct RenderBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render", abstract: "The renderer stage by stage, and the whole `cloudgen render` process, on one cloud.")

    struct Result: Codable {
        var build: String
        var points: Int
        var size: [Int]
        var threads: Int
        var cloud: String
        /// What the cloud is, for the report's title.
        var cloudName: String
        /// CloudReader.read of the PLY, in process.
        var read: Timing
        /// PointRenderer.camera(for:): the distance and target that frame the cloud.
        var framing: Timing
        /// DepthBuffer on every core, and on one.
        var rasterise: Timing
        var rasteriseOneThread: Timing
        var shade: Timing
        /// libpng, zlib level 1, SUB filter: the preview setting.
        var encodePNG: Timing
        var pngBytes: Int
        /// framing + rasterise + shade + encode, in process.
        var renderToPNG: Timing
        /// `cloudgen render FILE --out F.png --json`, a new process each run: reading the PLY included.
        var process: Timing
        /// The stages that process reports (`milliseconds`), each the median over the runs.
        var processStagesMs: [String: Double]
        /// Their sum over the wall time measured here, median over the runs: how much of the
        /// process the report accounts for.
        var processStagesShare: Double
    }

    @Argument(help: "Where the cloud's PLY (read by Open3D's side) and the images go.")
    var workdir: String

    @Argument(help: "The cloudgen binary whose whole `render` process is timed.")
    var cloudgen: String

    @Option(help: "The binary PLY to draw; without it, one frame of the simulated room at 1280x800.")
    var cloud: String?

    @Option(help: "Timed runs of each measurement.")
    var runs = 20

    @Option(help: "Untimed runs first.")
    var warmup = 3

    func validate() throws {
        try RunCounts.check(runs: runs, warmup: warmup)
    }

    func run() throws {
        try printReport { try measureAll() }
    }

    func measureAll() throws -> Result {
        let workdir = URL(fileURLWithPath: workdir, isDirectory: true)
        try FileManager.default.createDirectory(at: workdir, withIntermediateDirectories: true)

        let plyPath = workdir.appendingPathComponent("render-cloud.ply").path
        let cloudName: String
        if let cloudFile = cloud {
            // Both sides read these very bytes.
            try? FileManager.default.removeItem(atPath: plyPath)
            try FileManager.default.copyItem(atPath: cloudFile, toPath: plyPath)
            cloudName = URL(fileURLWithPath: cloudFile).lastPathComponent
        } else {
            let spec = "synthetic:depth=1280x800,color=1280x800,noise=1"
            guard let captured = try SourceSpec(parsing: spec).open().nextFrame() else { throw CloudError.io("\(spec): no frame") }
            let (cloud, _) = try BackProjection().run(RGBDFrame(decoding: captured, origin: spec))
            try writeCloud(cloud, to: plyPath, format: .ply(.binary))
            cloudName = spec
        }
        let cloud = try CloudReader.read(plyPath).cloud
        let points = Double(cloud.count)
        func perPoint(_ t: Timing) -> Timing {
            var t = t
            t.pointsPerS = points / t.medianS
            return t
        }
        let read = perPoint(try measure(runs: runs, warmup: warmup) { try CloudReader.read(plyPath).cloud.count })

        let renderer = PointRenderer(cloud: cloud)
        let view = RenderView(width: 1280, height: 720, azimuth: 30, elevation: 20)
        let framing = perPoint(try measure(runs: runs, warmup: warmup) { Int(try renderer.camera(for: view).distance) })
        let camera = try renderer.camera(for: view)
        let style = RenderStyle(color: .rgb, pointSize: 1)
        let rasterise = perPoint(measure(runs: runs, warmup: warmup) { renderer.rasterise(camera, pointSize: 1).width })
        let oneThread = perPoint(measure(runs: runs, warmup: warmup) { renderer.rasterise(camera, pointSize: 1, threads: 1).width })
        let buffer = renderer.rasterise(camera, pointSize: 1)
        let shade = measure(runs: runs, warmup: warmup) { renderer.shade(buffer, camera: camera, style: style).image.width }
        let image = renderer.shade(buffer, camera: camera, style: style).image
        var encode = perPoint(try measure(runs: runs, warmup: warmup) { try PNGWriter.encode(rgb: image, origin: "bench").count })
        let png = try PNGWriter.encode(rgb: image, origin: "bench")
        encode.bytes = png.count
        let whole = perPoint(
            try measure(runs: runs, warmup: warmup) {
                try PNGWriter.encode(rgb: try renderer.render(try renderer.camera(for: view), style: style).image, origin: "bench").count
            })
        let (process, stages, share) = try Self.measureProcess(
            cloudgen, plyPath: plyPath, runs: max(3, runs / 2),
            out: workdir.appendingPathComponent("render-cloudgen.png").path)
        return Result(
            build: build, points: cloud.count, size: [1280, 720], threads: ProcessInfo.processInfo.activeProcessorCount,
            cloud: plyPath, cloudName: cloudName, read: read, framing: framing, rasterise: rasterise,
            rasteriseOneThread: oneThread, shade: shade, encodePNG: encode, pngBytes: png.count, renderToPNG: whole,
            process: process, processStagesMs: stages, processStagesShare: share)
    }

    /// Whole `cloudgen render --json` processes (after one untimed), each timed from spawn to exit,
    /// with the stages each one reports. posix_spawn and waitpid, as Python's subprocess does on
    /// Open3D's side: Foundation's Process added tens of milliseconds a run here.
    static func measureProcess(_ executable: String, plyPath: String, runs: Int, out: String) throws
        -> (Timing, stages: [String: Double], share: Double)
    {
        var samples: [UInt64] = []
        var stages: [String: [Double]] = [:]
        var shares: [Double] = []
        let arguments = [executable, "render", plyPath, "--out", out, "--azimuth", "30", "--elevation", "20", "--point-size", "1", "--json"]
        for run in 0...runs {
            var pipe: [Int32] = [0, 0]
            guard Glibc.pipe(&pipe) == 0 else { throw CloudError.io("pipe failed") }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
            posix_spawn_file_actions_addclose(&actions, pipe[0])
            let argv = arguments.map { strdup($0) } + [nil]
            var pid: pid_t = 0
            let start = DispatchTime.now().uptimeNanoseconds
            let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
            close(pipe[1])
            argv.forEach { free($0) }
            posix_spawn_file_actions_destroy(&actions)
            guard spawned == 0 else { throw CloudError.io("\(executable): posix_spawn failed (\(spawned))") }
            let report = FileHandle(fileDescriptor: pipe[0], closeOnDealloc: true).readDataToEndOfFile()
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            let wall = DispatchTime.now().uptimeNanoseconds - start
            guard status == 0 else { throw CloudError.io("cloudgen render exited with status \(status)") }
            guard run > 0 else { continue }
            samples.append(wall)
            let object = try JSONSerialization.jsonObject(with: report) as? [String: Any]
            guard let milliseconds = object?["milliseconds"] as? [String: Double] else {
                throw CloudError.io("cloudgen render --json: no milliseconds in its report")
            }
            for (stage, value) in milliseconds { stages[stage, default: []].append(value) }
            shares.append(milliseconds.values.reduce(0, +) / (Double(wall) / 1e6))
        }
        return (Timing(nanoseconds: samples), stages.mapValues(median), median(shares))
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let n = sorted.count
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
    }
}
