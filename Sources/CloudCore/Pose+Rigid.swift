extension Pose {
    /// The tolerance of `isRigid` by default: loose enough for matrices stored as Float32 or
    /// printed with 6 decimals, tight enough to refuse any scale or shear (0.1%).
    public static let rigidTolerance = 1e-3

    /// Whether the pose is a rigid motion: a finite translation and a proper rotation, that is
    /// rows orthonormal to within `tolerance` (each dot product off by at most that much) and
    /// determinant +1 (not a reflection). A scaled, sheared or mirrored matrix, or any NaN or
    /// infinity, is not rigid.
    public func isRigid(tolerance: Double = rigidTolerance) -> Bool {
        let rows = [rotation.0, rotation.1, rotation.2]
        guard (rows + [translation]).allSatisfy({ $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }) else { return false }
        for a in 0..<3 {
            for b in a..<3 where abs((rows[a] * rows[b]).sum() - (a == b ? 1 : 0)) > tolerance { return false }
        }
        return (rotation.0 * cross(rotation.1, rotation.2)).sum() > 0
    }
}
