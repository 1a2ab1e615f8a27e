/// Plan metres to picture pixels: one scale on both axes (a square metre stays square), the plan's
/// y flipped so that it points up the page, the plan's bounding box centred in the drawing area.
///
/// Everything is Double: plan points come as Float, and a box from −3e38 to 3e38 spans more than
/// Float holds. Halves of the bounds are taken before subtracting so that even Double's extremes
/// neither overflow nor give an infinite scale.
struct FloorPlanFrame: Equatable {
    let pixelsPerMetre: Double
    /// The plan point drawn at `pixelCentre`.
    let centre: SIMD2<Double>
    let pixelCentre: SIMD2<Double>

    /// A plan smaller than this (a single point, all points equal) is shown as a box this wide
    /// rather than magnified without limit.
    static let smallestSpan = 0.5

    init(fitting bounds: FloorPlanBounds, into area: FloorPlanRect) {
        pixelCentre = SIMD2<Double>(Double(area.x0 + area.x1) / 2, Double(area.y0 + area.y1) / 2)
        guard let low = bounds.min, let high = bounds.max else {
            centre = .zero
            pixelsPerMetre = Double(min(area.width, area.height)) / Self.smallestSpan
            return
        }
        centre = low / 2 + high / 2
        let half: SIMD2<Double> = pointwiseMax(high / 2 - low / 2, SIMD2(repeating: Self.smallestSpan / 2))
        let (across, down) = (Double(area.width) / 2 / half.x, Double(area.height) / 2 / half.y)
        pixelsPerMetre = Swift.min(across, down)
    }

    /// Pixel coordinates (pixel centres at +0.5) of a plan point; non-finite for non-finite input.
    @inline(__always) func pixel(_ p: SIMD2<Double>) -> SIMD2<Double> {
        SIMD2(pixelCentre.x + (p.x - centre.x) * pixelsPerMetre, pixelCentre.y - (p.y - centre.y) * pixelsPerMetre)
    }
}

/// The finite extremes of what frames the picture.
struct FloorPlanBounds {
    private(set) var min: SIMD2<Double>?
    private(set) var max: SIMD2<Double>?

    mutating func add(_ p: SIMD2<Double>) {
        guard p.x.isFinite, p.y.isFinite else { return }
        min = min.map { pointwiseMin($0, p) } ?? p
        max = max.map { pointwiseMax($0, p) } ?? p
    }

    /// Finite points added through `add(_: [SIMD2<Float>])`.
    private(set) var pointCount = 0

    /// Adds many points with one pass and no allocation (`add` per point would rebuild optionals).
    mutating func add(_ points: [SIMD2<Float>]) {
        var (lo, hi) = (SIMD2<Float>(repeating: .infinity), SIMD2<Float>(repeating: -.infinity))
        var count = 0
        points.withUnsafeBufferPointer { buffer in
            for p in buffer where p.x.isFinite && p.y.isFinite {
                lo = pointwiseMin(lo, p)
                hi = pointwiseMax(hi, p)
                count += 1
            }
        }
        guard count > 0 else { return }
        pointCount += count
        add(SIMD2(Double(lo.x), Double(lo.y)))
        add(SIMD2(Double(hi.x), Double(hi.y)))
    }

    mutating func add(_ other: FloorPlanBounds) {
        if let min = other.min, let max = other.max {
            add(min)
            add(max)
        }
    }

    /// Metres between neighbouring points if the points sampled their box evenly; nil without
    /// points or for a box of no area.
    var spacing: Double? {
        guard let min, let max, pointCount > 0 else { return nil }
        let size = max / 2 - min / 2
        let area = 4 * size.x * size.y
        return area > 0 && area.isFinite ? (area / Double(pointCount)).squareRoot() : nil
    }
}

/// A rectangle of whole pixels, x0..<x1 by y0..<y1.
struct FloorPlanRect: Equatable {
    var x0: Int
    var y0: Int
    var x1: Int
    var y1: Int

    var width: Int { x1 - x0 }
    var height: Int { y1 - y0 }

    func overlaps(_ other: FloorPlanRect) -> Bool {
        x0 < other.x1 && other.x0 < x1 && y0 < other.y1 && other.y0 < y1
    }

    func contains(_ other: FloorPlanRect) -> Bool {
        other.x0 >= x0 && other.x1 <= x1 && other.y0 >= y0 && other.y1 <= y1
    }

    /// Whether the segment a-b comes within `radius` of the rectangle (Liang-Barsky clipping of the
    /// segment against the rectangle grown by `radius`; the grown corners are square, which only
    /// errs on the side of keeping a label off a line).
    func touches(segment a: SIMD2<Double>, _ b: SIMD2<Double>, radius: Double) -> Bool {
        let d = b - a
        var (t0, t1) = (0.0, 1.0)
        let edges: [(Double, Double)] = [
            (-d.x, a.x - (Double(x0) - radius)), (d.x, Double(x1) + radius - a.x),
            (-d.y, a.y - (Double(y0) - radius)), (d.y, Double(y1) + radius - a.y)
        ]
        for (p, q) in edges {
            if p == 0 {
                if q < 0 { return false }
                continue
            }
            let t = q / p
            if p < 0 { t0 = Swift.max(t0, t) } else { t1 = Swift.min(t1, t) }
            if t0 > t1 { return false }
        }
        return true
    }
}
