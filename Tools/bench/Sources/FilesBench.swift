import ArgumentParser
import CloudCore
import CloudFiles
import Foundation

/// `cloudgen-bench files DIR [--runs N] [--warmup N]`: reading and writing cloud files in process,
/// on the files Tools/bench/run puts in DIR (the fused Redwood sequence as binary PLY, binary PCD
/// and binary_compressed PCD), for open3d_files_bench.py to time Open3D on the very same files.
struct FilesBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "files", abstract: "Reading and writing cloud files in process, for open3d_files_bench.py.")

    struct Report: Codable {
        var build: String
        var points: Int
        /// file name -> CloudReader.read, whole (open, parse, every channel in final arrays).
        var reads: [String: Timing]
        /// format -> CloudWriter.write of the cloud read from fused.ply.
        var writes: [String: Timing]
    }

    static let files = ["fused.ply", "fused.pcd", "fused-compressed.pcd"]

    @Argument(help: "The folder Tools/bench/run fills: fused.ply, fused.pcd, fused-compressed.pcd.")
    var folder: String

    @OptionGroup var counts: RunCounts

    func run() throws {
        let (runs, warmup) = (counts.runs, counts.warmup)
        try printReport {
            let dir = URL(fileURLWithPath: folder, isDirectory: true)
            var reads: [String: Timing] = [:]
            for name in Self.files {
                let path = dir.appendingPathComponent(name).path
                reads[name] = try measure(runs: runs, warmup: warmup) { try CloudReader.read(path).cloud.count }
            }
            let cloud = try CloudReader.read(dir.appendingPathComponent("fused.ply").path).cloud
            var writes: [String: Timing] = [:]
            let out = dir.appendingPathComponent("cloudgen-out")
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            for (key, file, format) in [
                ("ply_binary", "w.ply", CloudFileFormat.ply(.binary)), ("pcd_binary", "w.pcd", .pcd(.binary)),
                ("pcd_binary_compressed", "w-compressed.pcd", .pcd(.compressed))
            ] {
                let path = out.appendingPathComponent(file).path
                var t = try measure(runs: runs, warmup: warmup) {
                    try writeCloud(cloud, to: path, format: format)
                    return 1
                }
                t.bytes = fileSize(path)
                writes[key] = t
            }
            return Report(build: build, points: cloud.count, reads: reads, writes: writes)
        }
    }
}
