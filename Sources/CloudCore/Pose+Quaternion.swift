/// Poses given as a translation and an orientation quaternion, as PCD's VIEWPOINT line, TUM's
/// groundtruth.txt and the phone apps' pose files write them.
extension Pose {
    /// The rotation of the quaternion w + xi + yj + zk, normalized first (files round their
    /// digits); nil when a number is not finite or the quaternion is zero, which is no rotation.
    public init?(translation: SIMD3<Double>, w: Double, x: Double, y: Double, z: Double) {
        guard [w, x, y, z].allSatisfy(\.isFinite), translation.x.isFinite, translation.y.isFinite, translation.z.isFinite else {
            return nil
        }
        let n = (w * w + x * x + y * y + z * z).squareRoot()
        guard n > 1e-9 else { return nil }
        let (w, x, y, z) = (w / n, x / n, y / n, z / n)
        self.init(
            rows: (
                SIMD3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
                SIMD3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
                SIMD3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y))
            ),
            translation: translation)
    }

    /// The rotation as a unit quaternion (w, x, y, z), w >= 0 (one of the two a rotation has).
    public var quaternion: SIMD4<Double> {
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
        return q
    }
}
