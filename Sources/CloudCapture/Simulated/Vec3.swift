/// Three Doubles with just the arithmetic the ray caster needs. The per-pixel code uses this
/// concrete type rather than the generic `SIMD3<Double>`, whose operators are unspecialised (and
/// two orders of magnitude slower) in debug builds, where the tests run. Public API speaks SIMD3.
struct Vec3 {
    var x, y, z: Double

    @inline(__always) init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    @inline(__always) init(_ v: SIMD3<Double>) {
        self.init(v.x, v.y, v.z)
    }

    var simd: SIMD3<Double> { SIMD3(x, y, z) }

    @inline(__always) static func + (a: Vec3, b: Vec3) -> Vec3 { Vec3(a.x + b.x, a.y + b.y, a.z + b.z) }
    @inline(__always) static func - (a: Vec3, b: Vec3) -> Vec3 { Vec3(a.x - b.x, a.y - b.y, a.z - b.z) }
    @inline(__always) static func * (a: Vec3, s: Double) -> Vec3 { Vec3(a.x * s, a.y * s, a.z * s) }

    @inline(__always) func dot(_ b: Vec3) -> Double { x * b.x + y * b.y + z * b.z }
    @inline(__always) var length: Double { dot(self).squareRoot() }

    /// Component-wise reciprocal; a zero component becomes an infinity of the same sign, which the
    /// slab tests below rely on.
    @inline(__always) var reciprocal: Vec3 { Vec3(1 / x, 1 / y, 1 / z) }
}

/// An axis-aligned box [lo, hi], the only primitive of the procedural room.
struct AxisBox {
    var lo: Vec3
    var hi: Vec3

    /// Where a ray that starts outside the box first enters it: the ray parameter and the axis
    /// (0, 1, 2) of the face it crosses, or nil when it misses or the box is behind the origin.
    /// `inverse` is the reciprocal of the ray direction.
    @inline(__always)
    func entry(origin o: Vec3, inverse inv: Vec3) -> (t: Double, axis: Int)? {
        let ax = (lo.x - o.x) * inv.x
        let bx = (hi.x - o.x) * inv.x
        let ay = (lo.y - o.y) * inv.y
        let by = (hi.y - o.y) * inv.y
        let az = (lo.z - o.z) * inv.z
        let bz = (hi.z - o.z) * inv.z
        let nx = min(ax, bx)
        let ny = min(ay, by)
        let nz = min(az, bz)
        let near = max(nx, max(ny, nz))
        let far = min(max(ax, bx), min(max(ay, by), max(az, bz)))
        guard near <= far, near > 0 else { return nil }
        return (near, near == nx ? 0 : (near == ny ? 1 : 2))
    }

    /// Where a ray that starts inside the box leaves it: the ray parameter and the exit axis.
    @inline(__always)
    func exit(origin o: Vec3, direction d: Vec3, inverse inv: Vec3) -> (t: Double, axis: Int) {
        // A zero direction component gives +infinity here either way (inverse is +-inf, and the
        // chosen bound lies on the far side of the origin), so that axis never wins.
        let tx = ((d.x > 0 ? hi.x : lo.x) - o.x) * inv.x
        let ty = ((d.y > 0 ? hi.y : lo.y) - o.y) * inv.y
        let tz = ((d.z > 0 ? hi.z : lo.z) - o.z) * inv.z
        if tx <= ty && tx <= tz { return (tx, 0) }
        return ty <= tz ? (ty, 1) : (tz, 2)
    }

    /// Whether `p` lies on the box's surface, within `tolerance` of it.
    func hasOnSurface(_ p: Vec3, tolerance: Double) -> Bool {
        let inGrown =
            p.x >= lo.x - tolerance && p.x <= hi.x + tolerance
            && p.y >= lo.y - tolerance && p.y <= hi.y + tolerance
            && p.z >= lo.z - tolerance && p.z <= hi.z + tolerance
        let inShrunk =
            p.x > lo.x + tolerance && p.x < hi.x - tolerance
            && p.y > lo.y + tolerance && p.y < hi.y - tolerance
            && p.z > lo.z + tolerance && p.z < hi.z - tolerance
        return inGrown && !inShrunk
    }
}
