import CloudCore

/// One frame made ready for registration: an image pyramid (full size, then halves) of depth,
/// intensity and its gradients, and each pixel's point and surface normal in the camera frame.
/// Made once per frame, it serves as the frame that moves (source) and, later, as the one it is
/// registered to (target).
public struct OdometryFrame: Sendable {
    /// One level of the pyramid; arrays are row-major, `width * height` long.
    struct Level: Sendable {
        let width: Int
        let height: Int
        let fx: Float, fy: Float, cx: Float, cy: Float
        /// Metres along the optical axis; 0 where there is none (or out of the trusted range).
        let depth: [Float]
        /// Points in the camera frame; z = 0 where there is no depth.
        let points: [SIMD3<Float>]
        /// Unit normals facing the camera; zero where the neighbours do not span a surface.
        let normals: [SIMD3<Float>]
        /// Luma in 0...1 and its horizontal and vertical gradients per pixel; empty without color.
        let intensity: [Float]
        let gradientX: [Float]
        let gradientY: [Float]
    }

    let levels: [Level]

    /// Depth steps between neighbours larger than this share of their depth are edges (occlusions),
    /// not surface: no normal is taken across them and no coarser pixel averages over them.
    static let edgeShare: Float = 0.05

    /// `depthRange`: depth outside it is not trusted for registration (a Kinect-class sensor's
    /// noise grows with the square of depth; far pixels pull a pose more than they inform it).
    public init(_ frame: RGBDFrame, levels count: Int = 3, depthRange: ClosedRange<Float> = 0.1...4) {
        let (w, h) = (frame.depth.width, frame.depth.height)
        let k = frame.intrinsics.scaled(toWidth: w, height: h)
        var depth = frame.depth.metres.map { depthRange.contains($0) ? $0 : 0 }
        var intensity = frame.color.map { Self.luma($0) } ?? []
        var levels: [Level] = []
        var (width, height) = (w, h)
        var (fx, fy, cx, cy) = (Float(k.fx), Float(k.fy), Float(k.cx), Float(k.cy))
        for level in 0..<max(1, count) {
            if level > 0 {
                guard width >= 16 && height >= 16 else { break }
                depth = Self.halvedDepth(depth, width: width, height: height)
                intensity = intensity.isEmpty ? [] : Self.halved(intensity, width: width, height: height)
                (width, height) = (width / 2, height / 2)
                (fx, fy, cx, cy) = (fx / 2, fy / 2, (cx + 0.5) / 2 - 0.5, (cy + 0.5) / 2 - 0.5)
            }
            levels.append(Self.level(depth: depth, intensity: intensity, width: width, height: height, fx: fx, fy: fy, cx: cx, cy: cy))
        }
        self.levels = levels
    }

    /// Whether the frame has color (the photometric term needs it in both frames).
    public var hasIntensity: Bool { !levels[0].intensity.isEmpty }

    private static func level(
        depth: [Float], intensity: [Float], width w: Int, height h: Int, fx: Float, fy: Float, cx: Float, cy: Float
    ) -> Level {
        var points = [SIMD3<Float>](repeating: .zero, count: w * h)
        for v in 0..<h {
            for u in 0..<w {
                let z = depth[v * w + u]
                guard z > 0 else { continue }
                points[v * w + u] = SIMD3((Float(u) - cx) * z / fx, (Float(v) - cy) * z / fy, z)
            }
        }
        var normals = [SIMD3<Float>](repeating: .zero, count: w * h)
        if w >= 3 && h >= 3 {
            for v in 1..<(h - 1) {
                for u in 1..<(w - 1) {
                    let i = v * w + u
                    let p = points[i]
                    guard p.z > 0 else { continue }
                    let (l, r, t, b) = (points[i - 1], points[i + 1], points[i - w], points[i + w])
                    let limit = edgeShare * p.z
                    guard l.z > 0, r.z > 0, t.z > 0, b.z > 0, abs(l.z - p.z) < limit, abs(r.z - p.z) < limit,
                        abs(t.z - p.z) < limit, abs(b.z - p.z) < limit
                    else { continue }
                    var n = simdCross(r - l, b - t)
                    let length = (n * n).sum().squareRoot()
                    guard length > 0 else { continue }
                    n /= length
                    // Facing the camera: the normal points back along the ray.
                    if (n * p).sum() > 0 { n = -n }
                    normals[i] = n
                }
            }
        }
        var gradientX: [Float] = []
        var gradientY: [Float] = []
        if !intensity.isEmpty {
            gradientX = [Float](repeating: 0, count: w * h)
            gradientY = [Float](repeating: 0, count: w * h)
            for v in 1..<max(1, h - 1) {
                for u in 1..<max(1, w - 1) {
                    let i = v * w + u
                    gradientX[i] = (intensity[i + 1] - intensity[i - 1]) / 2
                    gradientY[i] = (intensity[i + w] - intensity[i - w]) / 2
                }
            }
        }
        return Level(
            width: w, height: h, fx: fx, fy: fy, cx: cx, cy: cy, depth: depth, points: points, normals: normals,
            intensity: intensity, gradientX: gradientX, gradientY: gradientY)
    }

    /// Rec. 601 luma of sRGB values, 0...1.
    static func luma(_ image: ColorImage) -> [Float] {
        (0..<(image.width * image.height)).map { i in
            (0.299 * Float(image.rgb[3 * i]) + 0.587 * Float(image.rgb[3 * i + 1]) + 0.114 * Float(image.rgb[3 * i + 2])) / 255
        }
    }

    /// Each 2x2 block's mean (an odd last row or column is dropped).
    static func halved(_ values: [Float], width: Int, height: Int) -> [Float] {
        let (w, h) = (width / 2, height / 2)
        var out = [Float](repeating: 0, count: w * h)
        for v in 0..<h {
            for u in 0..<w {
                let i = 2 * v * width + 2 * u
                out[v * w + u] = (values[i] + values[i + 1] + values[i + width] + values[i + width + 1]) / 4
            }
        }
        return out
    }

    /// Each 2x2 block's mean depth over its valid pixels near the block's nearest one: a block
    /// across an occlusion edge keeps the near surface rather than a depth between the two.
    static func halvedDepth(_ depth: [Float], width: Int, height: Int) -> [Float] {
        let (w, h) = (width / 2, height / 2)
        var out = [Float](repeating: 0, count: w * h)
        for v in 0..<h {
            for u in 0..<w {
                let i = 2 * v * width + 2 * u
                let block = SIMD4(depth[i], depth[i + 1], depth[i + width], depth[i + width + 1])
                let valid = block .> 0
                guard any(valid) else { continue }
                let nearest = block.replacing(with: .infinity, where: .!valid).min()
                let near = valid .& (block - nearest .< edgeShare * nearest)
                let kept = SIMD4<Float>.zero.replacing(with: block, where: near)
                let n = SIMD4<Float>.zero.replacing(with: 1, where: near).sum()
                out[v * w + u] = kept.sum() / n
            }
        }
        return out
    }
}

@inline(__always) func simdCross(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> SIMD3<Float> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}
