import CloudCore
import CloudIO
import Foundation
import XCTest
final class ZZDebugImageTests: XCTestCase {
    func testTimings() throws {
        let d = try ImageFixtures.dataDirectory()
        for rel in ["open3d-rgbd/depth/00000.png","open3d-rgbd/other_formats/TUM_color.png","open3d-rgbd/color/00000.jpg","open3d-rgbd/other_formats/NYU_depth.pgm","open3d-rgbd/other_formats/NYU_color.ppm","pcl-grabber/frame_20121214T142255.814212_depth.tiff","pcl-grabber/frame_20121214T142255.814212_rgb.tiff","pcl-grabber/frame_20121214T142255.814212_depth.pclzf","pcl-grabber/frame_20121214T142255.814212_rgb.pclzf"] {
            let p = d.appendingPathComponent(rel).path
            let data = try Array(Data(contentsOf: URL(fileURLWithPath: p)))
            _ = try ImageFile.decode(data, origin: p)
            var best = Double.infinity
            for _ in 0..<20 {
                let t = DispatchTime.now().uptimeNanoseconds
                _ = try ImageFile.decode(data, origin: p)
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - t) / 1e6)
            }
            var bestRead = Double.infinity
            for _ in 0..<20 {
                let t = DispatchTime.now().uptimeNanoseconds
                _ = try ImageFile.read(p)
                bestRead = min(bestRead, Double(DispatchTime.now().uptimeNanoseconds - t) / 1e6)
            }
            print("TIME", (rel as NSString).lastPathComponent, String(format: "decode %.2f ms, read %.2f ms", best, bestRead))
        }
        let img = try ImageFile.read(d.appendingPathComponent("open3d-rgbd/depth/00000.png").path)
        guard case .uint16(let mm) = img.samples else { return }
        let col = try ImageFile.read(d.appendingPathComponent("open3d-rgbd/color/00000.jpg").path).colorImage(origin: "c")
        for level in [1, 6] {
            var best = Double.infinity, bestC = Double.infinity
            for _ in 0..<10 {
                var t = DispatchTime.now().uptimeNanoseconds
                try PNGWriter.write(gray16: mm, width: 640, height: 480, to: "/tmp/codecs/depth-l\(level).png", compressionLevel: level)
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - t) / 1e6)
                t = DispatchTime.now().uptimeNanoseconds
                try PNGWriter.write(rgb: col, to: "/tmp/codecs/color-l\(level).png", compressionLevel: level)
                bestC = min(bestC, Double(DispatchTime.now().uptimeNanoseconds - t) / 1e6)
            }
            print("TIME write level \(level): depth \(String(format: "%.2f", best)) ms, color \(String(format: "%.2f", bestC)) ms")
        }
    }
}
