#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Eye-dome lighting (Boucheny, 2009): a screen-space shading that needs no normals. A pixel
/// whose neighbours are nearer to the eye (in log depth) lies in a crease or behind an edge and is
/// darkened, so outlines and relief read even on a cloud drawn in one flat color.
enum EyeDomeLighting {
    /// How hard a log2-depth step darkens: a neighbour at half the depth blackens a pixel, the
    /// gentle slope of a surface seen at an angle shades it a little. Chosen by eye.
    static let strength: Float = 12

    static func apply(to rgb: inout [UInt8], buffer: DepthBuffer, radius: Int) {
        let (w, h) = (buffer.width, buffer.height)
        let logDepth = buffer.keys.map { $0 == DepthBuffer.empty ? Float.nan : log2(DepthBuffer.depth($0)) }
        let offsets = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)].map { ($0.0 * radius, $0.1 * radius) }
        logDepth.withUnsafeBufferPointer { depth in
            rgb.withUnsafeMutableBufferPointer { out in
                ParallelRows.run(h) { rows in
                    for y in rows {
                        for x in 0..<w {
                            let here = depth[y * w + x]
                            guard !here.isNaN else { continue }
                            var response: Float = 0
                            for (dx, dy) in offsets {
                                let (nx, ny) = (x + dx, y + dy)
                                guard nx >= 0, nx < w, ny >= 0, ny < h else { continue }
                                let there = depth[ny * w + nx]
                                // Empty neighbours (NaN) are far away: they never darken.
                                if there < here { response += here - there }
                            }
                            guard response > 0 else { continue }
                            let shade = exp(-strength * response)
                            for c in 0..<3 {
                                let i = 3 * (y * w + x) + c
                                out[i] = UInt8(Float(out[i]) * shade + 0.5)
                            }
                        }
                    }
                }
            }
        }
    }
}
