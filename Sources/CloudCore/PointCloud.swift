/// A colored point cloud in contiguous buffers, ready to cross into C (PCL) without per-point calls.
///
/// Positions are metres, interleaved x y z (`positions.count == count * 3`). Colors, when present,
/// are sRGB 8-bit, interleaved r g b (`colors.count == count * 3`). Normals, when present, are
/// interleaved nx ny nz, and may come with one curvature value per point (PCL's surface variation,
/// which PCD and PLY files store beside the normal). An organized cloud keeps the image grid (`organized.width * height == count`)
/// and marks pixels without a point with NaN positions, as PCL does.
public struct PointCloud: Equatable, Sendable {
    public struct Grid: Equatable, Sendable {
        public var width: Int
        public var height: Int
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    public var positions: [Float]
    public var colors: [UInt8]?
    public var normals: [Float]?
    public var curvature: [Float]?
    public var organized: Grid?

    public init(
        positions: [Float], colors: [UInt8]? = nil, normals: [Float]? = nil, curvature: [Float]? = nil,
        organized: Grid? = nil
    ) {
        precondition(positions.count % 3 == 0, "positions must hold x y z triples")
        precondition(colors.map { $0.count == positions.count } ?? true, "one r g b triple per point")
        precondition(normals.map { $0.count == positions.count } ?? true, "one normal per point")
        precondition(
            curvature.map { $0.count * 3 == positions.count && normals != nil } ?? true,
            "one curvature value per point, beside the normals")
        precondition(
            organized.map { $0.width * $0.height * 3 == positions.count } ?? true,
            "an organized cloud has width * height points")
        self.positions = positions
        self.colors = colors
        self.normals = normals
        self.curvature = curvature
        self.organized = organized
    }

    public var count: Int { positions.count / 3 }

    /// The bytes its arrays take.
    public var memoryBytes: Int {
        4 * (positions.count + (normals?.count ?? 0) + (curvature?.count ?? 0)) + (colors?.count ?? 0)
    }
    public var isEmpty: Bool { positions.isEmpty }

    public func point(_ index: Int) -> SIMD3<Float> {
        SIMD3(positions[3 * index], positions[3 * index + 1], positions[3 * index + 2])
    }

    public func color(_ index: Int) -> SIMD3<UInt8>? {
        guard let colors else { return nil }
        return SIMD3(colors[3 * index], colors[3 * index + 1], colors[3 * index + 2])
    }

    /// Points whose coordinates are all finite (organized clouds hold NaN placeholders).
    public var finiteCount: Int {
        positions.withUnsafeBufferPointer { p in
            var n = 0
            for i in stride(from: 0, to: p.count, by: 3) {
                // x - x is 0 for a finite x and NaN for NaN and the infinities: one test for all
                // three coordinates, without branches the compiler cannot vectorise.
                n &+= (p[i] - p[i]) + (p[i + 1] - p[i + 1]) + (p[i + 2] - p[i + 2]) == 0 ? 1 : 0
            }
            return n
        }
    }

    /// Axis-aligned bounds of the finite points, or nil when there are none.
    public var bounds: (min: SIMD3<Float>, max: SIMD3<Float>)? {
        var lo = SIMD3<Float>(repeating: .infinity)
        var hi = SIMD3<Float>(repeating: -.infinity)
        var any = false
        positions.withUnsafeBufferPointer { p in
            for i in stride(from: 0, to: p.count, by: 3) {
                let v = SIMD3(p[i], p[i + 1], p[i + 2])
                guard (v.x - v.x) + (v.y - v.y) + (v.z - v.z) == 0 else { continue }
                lo = pointwiseMin(lo, v)
                hi = pointwiseMax(hi, v)
                any = true
            }
        }
        return any ? (lo, hi) : nil
    }
}
