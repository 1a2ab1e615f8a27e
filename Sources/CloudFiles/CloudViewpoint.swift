import CloudCore

/// Where the camera stood, in the cloud's own coordinates, as cloud files record it: PCD's
/// `VIEWPOINT tx ty tz qw qx qy qz` line (PCL's sensor origin and orientation) and, in PLY,
/// `comment cloudgen viewpoint tx ty tz qw qx qy qz`. A camera-frame cloud's viewpoint is the
/// identity (the default PCL writes); a world-frame capture's is its camera's pose, which lets a
/// renderer show the file from the camera that took it, upright in its world.
extension Pose {
    /// The seven numbers of a VIEWPOINT line: translation, then a unit quaternion (w first).
    public var viewpoint: [Double] {
        let (r0, r1, r2) = rotation
        // Shepperd's method: the largest of the four squared components is computed first, so
        // the division is never by a small number.
        let trace = r0.x + r1.y + r2.z
        var q: SIMD4<Double>  // w x y z
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            q = SIMD4(s / 4, (r2.y - r1.z) / s, (r0.z - r2.x) / s, (r1.x - r0.y) / s)
        } else if r0.x > r1.y && r0.x > r2.z {
            let s = (1 + r0.x - r1.y - r2.z).squareRoot() * 2
            q = SIMD4((r2.y - r1.z) / s, s / 4, (r0.y + r1.x) / s, (r0.z + r2.x) / s)
        } else if r1.y > r2.z {
            let s = (1 + r1.y - r0.x - r2.z).squareRoot() * 2
            q = SIMD4((r0.z - r2.x) / s, (r0.y + r1.x) / s, s / 4, (r1.z + r2.y) / s)
        } else {
            let s = (1 + r2.z - r0.x - r1.y).squareRoot() * 2
            q = SIMD4((r1.x - r0.y) / s, (r0.z + r2.x) / s, (r1.z + r2.y) / s, s / 4)
        }
        if q.x < 0 { q = -q }  // one of the two quaternions of a rotation, w >= 0
        q /= (q * q).sum().squareRoot()
        return [translation.x, translation.y, translation.z, q.x, q.y, q.z, q.w]
    }

    /// The pose a VIEWPOINT line describes; nil unless it holds 7 finite numbers whose quaternion
    /// is not zero (it is normalized, as PCL's reader does).
    public init?(viewpoint v: [Double]) {
        guard v.count == 7 else { return nil }
        self.init(translation: SIMD3(v[0], v[1], v[2]), w: v[3], x: v[4], y: v[5], z: v[6])
    }
}
