/// A rigid transform taking camera-frame points (x right, y down, z forward) to a world frame:
/// p_world = rotation * p_camera + translation. Rows of `rotation` are stored as SIMD3 values.
public struct Pose: Equatable, Sendable {
    public var rotation: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)
    public var translation: SIMD3<Double>

    public init(rows: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>), translation: SIMD3<Double>) {
        self.rotation = rows
        self.translation = translation
    }

    public static let identity = Pose(rows: (SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)), translation: .zero)

    /// A camera at `eye` looking at `target` in a z-up world: camera x is to the right of the view
    /// direction, camera y points down (along world -z as far as the view direction allows).
    public static func lookAt(eye: SIMD3<Double>, target: SIMD3<Double>) -> Pose {
        let forward = normalize(target - eye)
        let right = normalize(cross(forward, SIMD3(0, 0, 1)))
        let down = cross(forward, right)
        // Columns of the camera-to-world rotation are the camera axes in world coordinates.
        return Pose(
            rows: (
                SIMD3(right.x, down.x, forward.x),
                SIMD3(right.y, down.y, forward.y),
                SIMD3(right.z, down.z, forward.z)
            ),
            translation: eye)
    }

    @inlinable
    public func apply(_ p: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3((rotation.0 * p).sum(), (rotation.1 * p).sum(), (rotation.2 * p).sum()) + translation
    }

    /// The camera-frame direction of a world-frame direction (the transpose of the rotation).
    @inlinable
    public func inverseRotate(_ d: SIMD3<Double>) -> SIMD3<Double> {
        rotation.0 * d.x + rotation.1 * d.y + rotation.2 * d.z
    }

    /// Rewrites interleaved x y z positions in place; NaN stays NaN (organized clouds). Large
    /// clouds are cut into bands of points that run on every core (each point's arithmetic is the
    /// same wherever it runs, so the result does not depend on the split).
    public func transform(positions: inout [Float]) {
        let points = positions.count / 3
        let bandPoints = 65_536
        let bands = (points + bandPoints - 1) / bandPoints
        positions.withUnsafeMutableBufferPointer { buffer in
            let p = buffer
            let move = { (begin: Int, end: Int) in
                for i in begin..<end {
                    let w = apply(SIMD3(Double(p[3 * i]), Double(p[3 * i + 1]), Double(p[3 * i + 2])))
                    p[3 * i] = Float(w.x)
                    p[3 * i + 1] = Float(w.y)
                    p[3 * i + 2] = Float(w.z)
                }
            }
            if bands <= 1 {
                move(0, points)
            } else {
                Parallel.parts(bands) { b in
                    move(b * bandPoints, Swift.min(points, (b + 1) * bandPoints))
                }
            }
        }
    }

    public static func == (a: Pose, b: Pose) -> Bool {
        a.rotation.0 == b.rotation.0 && a.rotation.1 == b.rotation.1 && a.rotation.2 == b.rotation.2
            && a.translation == b.translation
    }
}

// Vector helpers for the geometry of poses and rooms (measure's planes use them too).

@inlinable public func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

@inlinable public func normalize(_ a: SIMD3<Double>) -> SIMD3<Double> {
    a / (a * a).sum().squareRoot()
}

@inlinable public func dot(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
    (a * b).sum()
}
