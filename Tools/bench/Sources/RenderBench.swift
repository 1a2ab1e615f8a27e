// `cloudgen-bench render WORKDIR CLOUDGEN [--runs N] [--warmup N]`: the renderer on a cloud of about
// a million points (one frame of the simulated room at 1280x800) drawn at 1280x720, stage by stage,
// and the whole `cloudgen render` process on the same cloud's binary PLY. Writes the PLY into
// WORKDIR for Tools/bench/open3d_render_bench.py and prints one JSON object.

import CloudCapture
import CloudCore
import CloudIO
import CloudPCL
import CloudRender
import Foundation

enum RenderBench {
    struct Result: Codable {
        var build: String
        var points: Int
        var size: [Int]
        var threads: Int
        var cloud: String
        /// DepthBuffer on every core, and on one.
        var rasterise: Timing
        var rasteriseOneThread: Timing
        var shade: Timing
        /// libpng, zlib level 1, SUB filter: the preview setting.
        var encodePNG: Timing
        var pngBytes: Int
        /// rasterise + shade + encode, in process.
        var renderToPNG: Timing
        /// `cloudgen render FILE --out F.png`, a new process each run: reading the PLY included.
        var process: Timing
    }

    static func main(_ arguments: [String]) -> Never {
        #if DEBUG
        let build = "debug"
        #else
        let build = "release"
        #endif
        do {
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            FileHandle.standardOutput.write(try encoder.encode(run(arguments, build: build)) + Data("\n".utf8))
            exit(0)
        } catch let error as CloudError {
            fail(error.message, status: error.exitStatus)
        } catch {
            fail("\(error)", status: 3)
        }
    }

    static func run(_ arguments: [String], build: String) throws -> Result {
        var rest = arguments
        var runs = 20
        var warmup = 3
        var positional: [String] = []
        while !rest.isEmpty {
            let a = rest.removeFirst()
            if a == "--runs" || a == "--warmup", let v = rest.first.flatMap({ Int($0) }), v >= (a == "--runs" ? 1 : 0) {
                rest.removeFirst()
                if a == "--runs" { runs = v } else { warmup = v }
            } else {
                positional.append(a)
            }
        }
        guard positional.count == 2 else { throw CloudError.badInput("usage: cloudgen-bench render WORKDIR CLOUDGEN [--runs N] [--warmup N]") }
        let workdir = URL(fileURLWithPath: positional[0], isDirectory: true)
        try FileManager.default.createDirectory(at: workdir, withIntermediateDirectories: true)

        let spec = "synthetic:depth=1280x800,color=1280x800,noise=1"
        guard let captured = try SourceSpec(parsing: spec).open().nextFrame() else { throw CloudError.io("\(spec): no frame") }
        let (cloud, _) = try BackProjection().run(RGBDFrame(decoding: captured, origin: spec))
        let plyPath = workdir.appendingPathComponent("render-cloud.ply").path
        try writeCloud(cloud, to: plyPath, format: .ply(.binary))

        let renderer = PointRenderer(cloud: cloud)
        let camera = try renderer.camera(for: RenderView(width: 1280, height: 720, azimuth: 30, elevation: 20))
        let style = RenderStyle(color: .rgb, pointSize: 1)
        let points = Double(cloud.count)
        func perPoint(_ t: Timing) -> Timing {
            var t = t
            t.pointsPerS = points / t.medianS
            return t
        }
        let rasterise = perPoint(measure(runs: runs, warmup: warmup) { renderer.rasterise(camera, pointSize: 1).width })
        let oneThread = perPoint(measure(runs: runs, warmup: warmup) { renderer.rasterise(camera, pointSize: 1, threads: 1).width })
        let buffer = renderer.rasterise(camera, pointSize: 1)
        let shade = measure(runs: runs, warmup: warmup) { renderer.shade(buffer, camera: camera, style: style).image.width }
        let image = renderer.shade(buffer, camera: camera, style: style).image
        var encode = perPoint(try measure(runs: runs, warmup: warmup) { try PNGWriter.encode(rgb: image, origin: "bench").count })
        let png = try PNGWriter.encode(rgb: image, origin: "bench")
        encode.bytes = png.count
        let whole = perPoint(try measure(runs: runs, warmup: warmup) {
            try PNGWriter.encode(rgb: try renderer.render(camera, style: style).image, origin: "bench").count
        })
        let out = workdir.appendingPathComponent("render-cloudgen.png").path
        let process = try measure(runs: max(3, runs / 2), warmup: 1) {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: positional[1])
            p.arguments = ["render", plyPath, "--out", out, "--azimuth", "30", "--elevation", "20", "--point-size", "1"]
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            p.waitUntilExit()
            guard p.terminationStatus == 0 else { throw CloudError.io("cloudgen render exited \(p.terminationStatus)") }
            return 1
        }
        return Result(build: build, points: cloud.count, size: [1280, 720], threads: ProcessInfo.processInfo.activeProcessorCount,
                      cloud: plyPath, rasterise: rasterise, rasteriseOneThread: oneThread, shade: shade,
                      encodePNG: encode, pngBytes: png.count, renderToPNG: whole, process: process)
    }
}
