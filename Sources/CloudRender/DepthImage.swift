import CloudCore

/// A depth map as a picture: the jet colormap, red near and blue far over the frame's valid depth
/// range, optionally blended over the color image (the depth-streaming sample's slider), above a
/// scale bar labelled in metres. Pixels without depth are black, or show the color image alone.
public enum DepthImage {
    /// Small depth maps are enlarged by a whole factor to at least this width, so that the scale
    /// bar's labels stay legible beside them.
    public static let minimumWidth = 640

    /// `blend` 0...1 (the caller checks the flag) is the colormap's weight over `color` (which must
    /// then be given, at any size: it is sampled at each depth pixel's position).
    public static func render(depth: DepthMap, color: ColorImage? = nil, blend: Float? = nil, origin: String) throws -> ColorImage {
        if let blend {
            precondition(blend.isFinite && (0...1).contains(blend), "the blend weight is within 0...1")
            guard color != nil else {
                throw CloudError.badInput(.option("depth-blend"), "\(origin) has no color image to blend the depth over")
            }
        }
        let range = validRange(depth)
        // The bar's height grows with its width; reserving its tallest keeps the sum within bounds.
        let barRoom = ScaleBar(range: range, width: ImageLimits.maxSide).height
        guard depth.width <= ImageLimits.maxSide, depth.height <= ImageLimits.maxSide - barRoom else {
            throw CloudError.badInput(
                "--depth-image: \(origin)'s depth map is \(depth.width)x\(depth.height); with the scale bar "
                    + "the picture must fit \(ImageLimits.maxSide) pixels a side, so the height must be at most "
                    + "\(ImageLimits.maxSide - barRoom)")
        }
        let factor = max(
            1,
            min(
                (minimumWidth + depth.width - 1) / depth.width, ImageLimits.maxSide / depth.width,
                (ImageLimits.maxSide - barRoom) / depth.height))
        let (w, h) = (depth.width * factor, depth.height * factor)
        let bar = ScaleBar(range: range, width: w)
        var canvas = Canvas(width: w, height: h + bar.height, background: SIMD3(0, 0, 0))
        let weight = blend ?? 1
        // Each depth pixel's colour is worked out once and then repeated over its factor x factor
        // block: a phone's 256x192 map is drawn at 768x576, nine pixels per depth value.
        var row = [UInt8](repeating: 0, count: 3 * w)
        for dy in 0..<depth.height {
            for dx in 0..<depth.width {
                let d = depth.metres[dy * depth.width + dx]
                let under = color.map { c -> SIMD3<Float> in
                    let (cx, cy) = (dx * c.width / depth.width, dy * c.height / depth.height)
                    let i = 3 * (cy * c.width + cx)
                    return SIMD3(Float(c.rgb[i]), Float(c.rgb[i + 1]), Float(c.rgb[i + 2]))
                }
                var out = blend == nil ? SIMD3<Float>(repeating: 0) : under!
                if d > 0 && d.isFinite {
                    let jet = Colormap.jet(1 - Shading.fraction(d, of: range))
                    out = out * (1 - weight) + SIMD3(Float(jet.x), Float(jet.y), Float(jet.z)) * weight
                }
                let pixel = SIMD3(UInt8(out.x.rounded()), UInt8(out.y.rounded()), UInt8(out.z.rounded()))
                for x in dx * factor..<(dx + 1) * factor {
                    row[3 * x] = pixel.x
                    row[3 * x + 1] = pixel.y
                    row[3 * x + 2] = pixel.z
                }
            }
            for y in dy * factor..<(dy + 1) * factor {
                canvas.rgb.replaceSubrange(3 * y * w..<3 * (y + 1) * w, with: row)
            }
        }
        bar.draw(into: &canvas, top: h)
        return ColorImage(width: canvas.width, height: canvas.height, rgb: canvas.rgb)
    }

    /// Nearest and farthest valid depth, or 0...1 for a frame without any.
    static func validRange(_ depth: DepthMap) -> ClosedRange<Float> {
        var (lo, hi) = (Float.infinity, -Float.infinity)
        for d in depth.metres where d > 0 && d.isFinite {
            lo = min(lo, d)
            hi = max(hi, d)
        }
        return lo <= hi ? lo...hi : 0...1
    }
}
