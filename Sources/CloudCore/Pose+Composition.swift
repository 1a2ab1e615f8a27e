import Foundation

/// Rigid motions composed and undone: poses relative to one another (a keyframe's, a trajectory's).
extension Pose {
    /// `self` after `inner`: p -> self(inner(p)). For camera-to-world poses, a camera placed by
    /// `inner` relative to one placed by `self`.
    public func composed(after inner: Pose) -> Pose {
        let (a, b) = (rotation, inner.rotation)
        func row(_ r: SIMD3<Double>) -> SIMD3<Double> { b.0 * r.x + b.1 * r.y + b.2 * r.z }
        return Pose(rows: (row(a.0), row(a.1), row(a.2)), translation: apply(inner.translation))
    }

    /// The inverse motion: `inverted().apply(apply(p)) == p`.
    public func inverted() -> Pose {
        let (a, b, c) = rotation
        let rows = (SIMD3(a.x, b.x, c.x), SIMD3(a.y, b.y, c.y), SIMD3(a.z, b.z, c.z))
        return Pose(rows: rows, translation: -SIMD3(dot(rows.0, translation), dot(rows.1, translation), dot(rows.2, translation)))
    }

    /// How far the motion moves the origin, metres.
    public var translationLength: Double { (translation * translation).sum().squareRoot() }

    /// The rotation's angle, degrees.
    public var angleDegrees: Double {
        let trace = rotation.0.x + rotation.1.y + rotation.2.z
        return acos(max(-1, min(1, (trace - 1) / 2))) * 180 / .pi
    }
}

/// The rotation by the rotation vector `w` (axis times angle, radians), as Pose rows (Rodrigues).
public func rotationRows(_ w: SIMD3<Double>) -> (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>) {
    let angle = (w * w).sum().squareRoot()
    guard angle > 1e-15 else { return (SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)) }
    let k = w / angle
    let (s, c) = (sin(angle), cos(angle))
    let t = 1 - c
    return (
        SIMD3(c + k.x * k.x * t, k.x * k.y * t - k.z * s, k.x * k.z * t + k.y * s),
        SIMD3(k.y * k.x * t + k.z * s, c + k.y * k.y * t, k.y * k.z * t - k.x * s),
        SIMD3(k.z * k.x * t - k.y * s, k.z * k.y * t + k.x * s, c + k.z * k.z * t)
    )
}
