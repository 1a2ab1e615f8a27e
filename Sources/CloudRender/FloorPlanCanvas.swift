/// The floor plan's drawing primitives on `Canvas`: anti-aliased thick segments (solid or dashed),
/// discs and translucent boxes. Coordinates are pixels with pixel centres at +0.5; whatever lies
/// outside the picture is clipped, and every coordinate is clamped as a Double before it becomes
/// an Int, so a far-off or huge coordinate cannot trap.
extension Canvas {
    /// Mixes `color` over pixel (x, y) by `alpha` (0...1), in 1/256 steps of integer arithmetic.
    @inline(__always) mutating func blend(_ x: Int, _ y: Int, _ color: SIMD3<UInt8>, _ alpha: Float) {
        let i = 3 * (y * width + x)
        let weight = UInt16((Swift.min(1, Swift.max(0, alpha)) * 256).rounded())
        let keep = 256 - weight
        rgb[i] = UInt8((UInt16(rgb[i]) * keep + UInt16(color.x) * weight + 128) >> 8)
        rgb[i + 1] = UInt8((UInt16(rgb[i + 1]) * keep + UInt16(color.y) * weight + 128) >> 8)
        rgb[i + 2] = UInt8((UInt16(rgb[i + 2]) * keep + UInt16(color.z) * weight + 128) >> 8)
    }

    /// `rect` mixed with `color` by `alpha`: the backing of a label over the plan.
    mutating func shade(_ rect: FloorPlanRect, color: SIMD3<UInt8>, alpha: Float) {
        let (x0, y0, x1, y1) = (Swift.max(rect.x0, 0), Swift.max(rect.y0, 0), Swift.min(rect.x1, width), Swift.min(rect.y1, height))
        guard x0 < x1, y0 < y1 else { return }
        for y in y0..<y1 {
            for x in x0..<x1 { blend(x, y, color, alpha) }
        }
    }

    /// A segment `thickness` pixels wide with round ends. `dash` (on, off) in pixels along the
    /// segment draws it dashed, starting with a dash at `a`.
    mutating func line(
        from a: SIMD2<Double>, to b: SIMD2<Double>, thickness: Double, color: SIMD3<UInt8>,
        dash: (on: Double, off: Double)? = nil
    ) {
        guard a.x.isFinite, a.y.isFinite, b.x.isFinite, b.y.isFinite else { return }
        let r = thickness / 2
        // Pixels whose centre lies within r + 0.5 of the segment get some coverage.
        let reach = r + 1
        let d = b - a
        let lengthSquared = (d * d).sum()
        let length = lengthSquared.squareRoot()
        // Only rows the segment's band crosses, and in each row only the columns it crosses: the
        // work grows with the line's length, not with its bounding box.
        guard let rows = clampedRange(Swift.min(a.y, b.y) - reach, Swift.max(a.y, b.y) + reach, limit: height) else { return }
        for y in rows {
            let yc = Double(y) + 0.5
            var (t0, t1) = (0.0, 1.0)
            if d.y != 0 {
                let (u, v) = ((yc - reach - a.y) / d.y, (yc + reach - a.y) / d.y)
                (t0, t1) = (Swift.max(0, Swift.min(u, v)), Swift.min(1, Swift.max(u, v)))
                if t0 > t1 { continue }
            } else if abs(yc - a.y) > reach {
                continue
            }
            let (xa, xb) = (a.x + d.x * t0, a.x + d.x * t1)
            guard let columns = clampedRange(Swift.min(xa, xb) - reach, Swift.max(xa, xb) + reach, limit: width) else { continue }
            for x in columns {
                let p = SIMD2(Double(x) + 0.5, yc)
                let t = lengthSquared > 0 ? Swift.min(1, Swift.max(0, ((p - a) * d).sum() / lengthSquared)) : 0
                let offset = p - (a + d * t)
                var coverage = Swift.min(1, Swift.max(0, r + 0.5 - (offset * offset).sum().squareRoot()))
                if let dash, coverage > 0 {
                    let phase = (t * length).truncatingRemainder(dividingBy: dash.on + dash.off)
                    coverage *= Swift.min(1, Swift.max(0, Swift.min(phase + 0.5, dash.on + 0.5 - phase)))
                }
                if coverage > 0 { blend(x, y, color, Float(coverage)) }
            }
        }
    }

    /// A filled disc of `radius` pixels, anti-aliased at its rim.
    mutating func disc(at centre: SIMD2<Double>, radius: Double, color: SIMD3<UInt8>) {
        guard centre.x.isFinite, centre.y.isFinite,
            let rows = clampedRange(centre.y - radius - 1, centre.y + radius + 1, limit: height),
            let columns = clampedRange(centre.x - radius - 1, centre.x + radius + 1, limit: width)
        else { return }
        for y in rows {
            for x in columns {
                let offset = SIMD2(Double(x) + 0.5, Double(y) + 0.5) - centre
                let coverage = Swift.min(1, Swift.max(0, radius + 0.5 - (offset * offset).sum().squareRoot()))
                if coverage > 0 { blend(x, y, color, Float(coverage)) }
            }
        }
    }

    /// The whole pixels from `low` to `high` that lie in 0..<limit, or nil when none do.
    private func clampedRange(_ low: Double, _ high: Double, limit: Int) -> ClosedRange<Int>? {
        guard low <= high, high >= 0, low < Double(limit) else { return nil }
        return Int(Swift.max(0, low.rounded(.down)))...Int(Swift.min(Double(limit - 1), high.rounded(.down)))
    }
}
