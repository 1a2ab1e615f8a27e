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
}
