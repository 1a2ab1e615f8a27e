import CloudCore

/// The simulated camera's barrel lens (`distortion=1`): relative radial magnification
/// m(r) = k1 (2 x^2 - x^4) with x = r / r_max, k1 beyond r_max. It starts as the usual k1 r^2
/// barrel and flattens out at r_max, so holding the last entry beyond r_max (the lookup-table
/// model's rule) continues it smoothly. A lens whose magnification still grew at r_max would
/// put a kink into the inverse table's last intervals, where barrel-rectified corners land,
/// and linear interpolation across it errs by a third of a pixel. Radii are reference pixels
/// from a centre a little off the principal point, as real calibrations have it.
///
/// Rendering needs, for every captured (distorted) pixel, the ray of its rectified position: the
/// inverse of the forward mapping, solved here exactly rather than read from the inverse table,
/// so that the tables are checked against the lens rather than against themselves.
struct SyntheticLens {
    /// A few per cent of barrel at the corners, as phone wide-angle cameras show.
    static let k1 = -0.03
    /// Entries per table, as AVFoundation's tables have.
    static let tableEntries = 42

    let distortion: LensDistortion
    private let center: SIMD2<Double>
    private let maxRadius: Double

    init(reference size: ImageSize) {
        let (w, h) = (Double(size.width), Double(size.height))
        center = SIMD2(0.502 * w, 0.499 * h)
        var lens = LensDistortion(
            center: center, referenceWidth: size.width, referenceHeight: size.height,
            lookupTable: [], inverseLookupTable: [])
        let maxRadius = lens.maxRadius
        self.maxRadius = maxRadius
        let n = Self.tableEntries
        let radii = (0..<n).map { Double($0) * maxRadius / Double(n - 1) }
        lens.lookupTable = radii.map { Self.magnification($0 / maxRadius) }
        // The inverse table moves distorted radius r_d to rectified radius r = r_d (1 + m_inv), so
        // m_inv = r / r_d - 1; at the centre, where m = 0, it is 0 too.
        lens.inverseLookupTable = radii.map { $0 > 0 ? Self.rectifiedRadius($0, maxRadius: maxRadius) / $0 - 1 : 0 }
        distortion = lens
    }

    /// m at x = r / r_max.
    static func magnification(_ x: Double) -> Double {
        x >= 1 ? k1 : k1 * (2 * x * x - x * x * x * x)
    }

    /// The rectified radius whose image lies at distorted radius `rd`: the root of
    /// r (1 + m(r / R)) = rd below R, rd / (1 + k1) beyond. The forward mapping grows
    /// monotonically (its slope 1 + k1 (6 x^2 - 5 x^4) stays above 1 + 1.8 k1), so Newton's
    /// method from r = rd converges in a handful of steps.
    static func rectifiedRadius(_ rd: Double, maxRadius: Double) -> Double {
        guard rd < maxRadius * (1 + k1) else { return rd / (1 + k1) }
        var r = rd
        for _ in 0..<50 {
            let x2 = (r / maxRadius) * (r / maxRadius)
            let step = (r * (1 + k1 * (2 * x2 - x2 * x2)) - rd) / (1 + k1 * (6 * x2 - 5 * x2 * x2))
            r -= step
            if abs(step) <= 1e-12 * maxRadius { break }
        }
        return r
    }

    /// The rectified position of pixel (u, v) of an image of this camera whose pixels are `scale`
    /// reference pixels wide and high, in that image's pixels: to reference pixels with the
    /// intrinsics' scaling (image edges onto image edges), rectified, and back.
    @inline(__always)
    func rectify(u: Int, v: Int, scale: SIMD2<Double>) -> SIMD2<Double> {
        let d = (SIMD2(Double(u), Double(v)) + 0.5) * scale - 0.5 - center
        let rd = (d * d).sum().squareRoot()
        let ratio = rd > 0 ? Self.rectifiedRadius(rd, maxRadius: maxRadius) / rd : 1
        return (center + d * ratio + 0.5) / scale - 0.5
    }
}

/// The ray each pixel of one simulated image is rendered with, and the solids worth testing
/// along it: straight through the pixel centre for an ideal lens, through its rectified position
/// with `SyntheticLens`.
struct SyntheticView {
    let rays: PixelRays
    let lens: SyntheticLens?
    /// Reference pixels per image pixel, along x and y.
    private let scale: SIMD2<Double>
    /// `rays.direction` is affine in the pixel position; these extend it to fractional positions.
    private let origin: Vec3
    private let perColumn: Vec3
    private let perRow: Vec3

    init(scene: SyntheticScene, pose: Pose, intrinsics: CameraIntrinsics, lens: SyntheticLens?, width: Int, height: Int) {
        rays = PixelRays(scene: scene, pose: pose, intrinsics: intrinsics.scaled(toWidth: width, height: height))
        self.lens = lens
        scale = SIMD2(Double(intrinsics.referenceWidth) / Double(width), Double(intrinsics.referenceHeight) / Double(height))
        origin = rays.direction(u: 0, v: 0)
        perColumn = rays.direction(u: 1, v: 0) - origin
        perRow = rays.direction(u: 0, v: 1) - origin
    }

    /// Solids whose footprint covers row `v`; with a lens a row's rays bend over several rows of
    /// footprints, so every solid stays a candidate until `ray` narrows it per pixel.
    func candidates(row v: Int) -> UInt64 {
        lens == nil ? rays.candidates(row: v) : .max
    }

    /// The direction through pixel (u, v) (camera-frame z of 1) and its candidate solids.
    @inline(__always)
    func ray(u: Int, v: Int, row: UInt64) -> (direction: Vec3, candidates: UInt64) {
        guard let lens else { return (rays.direction(u: u, v: v), rays.candidates(row, column: u)) }
        let q = lens.rectify(u: u, v: v, scale: scale)
        // Footprints are grown by a pixel, so the rounded rectified position finds every solid the ray can hit.
        let (cu, cv) = (Int(q.x.rounded()), Int(q.y.rounded()))
        return (origin + perColumn * q.x + perRow * q.y, rays.candidates(rays.candidates(row: cv), column: cu))
    }
}
