import CloudCore
import Foundation

/// The few rigid-motion operations the simulated camera's yaw and roll need.
extension Pose {
    /// A turn by `degrees` about the vertical (z) through `pivot`, counter-clockwise seen from above.
    /// Exactly the identity for 0 degrees.
    static func turn(degrees: Double, about pivot: SIMD3<Double>) -> Pose {
        let r = zRotation(degrees: degrees)
        var pose = Pose(rows: r, translation: .zero)
        pose.translation = pivot - pose.apply(pivot)
        return pose
    }

    /// Rows of the rotation by `degrees` about z.
    static func zRotation(degrees: Double) -> (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>) {
        let (c, s) = (cos(degrees * .pi / 180), sin(degrees * .pi / 180))
        return (SIMD3(c, -s, 0), SIMD3(s, c, 0), SIMD3(0, 0, 1))
    }

    /// The same camera, rotated in its own frame by `rows` (applied before the pose).
    func rotatedInCameraFrame(_ rows: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)) -> Pose {
        Pose(rows: Self.product(rotation, rows), translation: translation)
    }

    /// The same camera, turned by `rows` about its own position in the outer frame.
    func turnedInPlace(_ rows: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)) -> Pose {
        Pose(rows: Self.product(rows, rotation), translation: translation)
    }

    /// The inverse transform of a point: outer frame to inner.
    func inverse(_ p: SIMD3<Double>) -> SIMD3<Double> {
        inverseRotate(p - translation)
    }

    private static func product(
        _ a: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>),
        _ b: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)
    ) -> (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>) {
        func row(_ r: SIMD3<Double>) -> SIMD3<Double> { b.0 * r.x + b.1 * r.y + b.2 * r.z }
        return (row(a.0), row(a.1), row(a.2))
    }
}
