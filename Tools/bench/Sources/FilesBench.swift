import CloudCore
import CloudFiles
import Foundation

/// `cloudgen-bench files DIR [--runs N] [--warmup N]`: reading and writing cloud files in process,
/// on the files Tools/bench/run puts in DIR (the fused Redwood sequence as binary PLY, binary PCD
/// and binary_compressed PCD), for open3d_files_bench.py to time Open3D on the very same files.
enum FilesBench {
    struct Report: Codable {
        var build: String
        var points: Int
        /// file name -> CloudReader.read, whole (open, parse, every channel in final arrays).
        var reads: [String: Timing]
        /// format -> CloudWriter.write of the cloud read from fused.ply.
        var writes: [String: Timing]
    }

    static let files = ["fused.ply", "fused.pcd", "fused-compressed.pcd"]

    static func main(_ arguments: [String]) -> Never {
        var rest = arguments
        var runs = 30
        var warmup = 3
        var folder: String?
        while !rest.isEmpty {
            let a = rest.removeFirst()
            if a == "--runs" || a == "--warmup", let v = rest.first.flatMap({ Int($0) }) {
                rest.removeFirst()
                if a == "--runs" { runs = v } else { warmup = v }
            } else if folder == nil, !a.hasPrefix("-") {
                folder = a
            } else {
                fail("usage: cloudgen-bench files DIR [--runs N] [--warmup N]", status: 2)
            }
        }
        guard let folder else { fail("usage: cloudgen-bench files DIR [--runs N] [--warmup N]", status: 2) }
        do {
            let dir = URL(fileURLWithPath: folder, isDirectory: true)
            var reads: [String: Timing] = [:]
            for name in files {
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
            #if DEBUG
            let build = "debug"
            #else
            let build = "release"
            #endif
            FileHandle.standardOutput.write(try benchJSON(Report(build: build, points: cloud.count, reads: reads, writes: writes)))
            FileHandle.standardOutput.write(Data("\n".utf8))
            exit(0)
        } catch let error as CloudError {
            fail(error.message, status: error.exitStatus)
        } catch {
            fail("\(error)", status: 3)
        }
    }
}
