import CloudCore

/// Turns a depth buffer into RGB pixels: one color lookup per covered pixel, in bands of rows.
struct Shading {
    var style: RenderStyle
    var basis: OrbitCamera.Basis
    var up: UpAxis
    /// The cloud's extent along the up axis, for `.height`.
    var heights: ClosedRange<Float>

    func shade(_ buffer: DepthBuffer, cloud: PointCloud) -> [UInt8] {
        let (w, h) = (buffer.width, buffer.height)
        var rgb = [UInt8](repeating: 0, count: w * h * 3)
        let depths = style.color == .depth ? Self.depthRange(buffer) : 0...1
        let (bg, style, up, heights, forward) = (style.background, style, up, heights, basis.forward)
        buffer.keys.withUnsafeBufferPointer { keys in
            cloud.positions.withUnsafeBufferPointer { positions in
                (cloud.colors ?? []).withUnsafeBufferPointer { colors in
                    (cloud.normals ?? []).withUnsafeBufferPointer { normals in
                        rgb.withUnsafeMutableBufferPointer { out in
                            ParallelRows.run(h) { rows in
                                for i in (rows.lowerBound * w)..<(rows.upperBound * w) {
                                    let key = keys[i]
                                    var c = SIMD3(bg.r, bg.g, bg.b)
                                    if key != DepthBuffer.empty {
                                        let p = DepthBuffer.index(key)
                                        switch style.color {
                                        case .rgb:
                                            c = SIMD3(colors[3 * p], colors[3 * p + 1], colors[3 * p + 2])
                                        case .depth:
                                            c = Colormap.jet(1 - Self.fraction(DepthBuffer.depth(key), of: depths))
                                        case .height:
                                            let v = positions[3 * p + up.axis]
                                            c = Colormap.height(Self.fraction(up.negative ? -v : v, of: heights))
                                        case .normal:
                                            var n = SIMD3(normals[3 * p], normals[3 * p + 1], normals[3 * p + 2])
                                            // Unoriented normals: show the side that faces the eye.
                                            if dot(n, forward) > 0 { n = -n }
                                            let unit = (n + 1) * 127.5
                                            c = SIMD3(
                                                UInt8(clamping: Int(unit.x.isFinite ? unit.x : 0)),
                                                UInt8(clamping: Int(unit.y.isFinite ? unit.y : 0)),
                                                UInt8(clamping: Int(unit.z.isFinite ? unit.z : 0)))
                                        }
                                    }
                                    out[3 * i] = c.x
                                    out[3 * i + 1] = c.y
                                    out[3 * i + 2] = c.z
                                }
                            }
                        }
                    }
                }
            }
        }
        return rgb
    }

    @inline(__always) static func fraction(_ v: Float, of range: ClosedRange<Float>) -> Float {
        let span = range.upperBound - range.lowerBound
        return span > 0 ? (v - range.lowerBound) / span : 0.5
    }

    /// Nearest and farthest drawn depth.
    static func depthRange(_ buffer: DepthBuffer) -> ClosedRange<Float> {
        var (lo, hi) = (UInt64.max, UInt64.min)
        for key in buffer.keys where key != DepthBuffer.empty {
            lo = Swift.min(lo, key)
            hi = Swift.max(hi, key)
        }
        return lo > hi ? 0...1 : DepthBuffer.depth(lo)...DepthBuffer.depth(hi)
    }
}
