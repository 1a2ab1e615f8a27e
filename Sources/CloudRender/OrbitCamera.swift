#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A perspective camera orbiting a target point, as a 3D viewer's orbit control moves it.
///
/// The orbit is laid out around the up axis `u`. Its reference direction `f = u × x̂` (`u × ŷ` when
/// up is ±x) makes +x point right at azimuth 0: for a camera-frame cloud (up -y) `f` is +z, the
/// view of the camera that took it; for a world-frame room (up +z) it is +y, looking across the
/// room from its front wall. Azimuth turns the view direction about `u` towards `r = f × u`
/// (azimuth 90 looks along r); positive elevation raises the eye and looks down.
///
/// Pixels follow the pinhole model: a point at (xc, yc, zc) in the eye's frame (right, up, forward)
/// lands at column `width/2 + focal·xc/zc`, row `height/2 − focal·yc/zc`, pixel (i, j) covering
/// [i, i+1) × [j, j+1); `focal = (height/2) / tan(fov/2)`, fov being vertical.
public struct OrbitCamera: Equatable, Sendable {
    public var target: SIMD3<Float>
    public var distance: Float
    /// Degrees.
    public var azimuth: Float
    /// Degrees, −90...90.
    public var elevation: Float
    /// Vertical field of view, degrees.
    public var fieldOfView: Float
    public var up: UpAxis
    public var width: Int
    public var height: Int

    public init(target: SIMD3<Float>, distance: Float, azimuth: Float, elevation: Float, fieldOfView: Float,
                up: UpAxis, width: Int, height: Int) {
        self.target = target
        self.distance = distance
        self.azimuth = azimuth
        self.elevation = elevation
        self.fieldOfView = fieldOfView
        self.up = up
        self.width = width
        self.height = height
    }

    /// The eye's frame: unit right, up and forward (view direction) vectors, in the cloud's frame.
    public struct Basis: Equatable, Sendable {
        public var right: SIMD3<Float>
        public var up: SIMD3<Float>
        public var forward: SIMD3<Float>
    }

    /// The orbit's reference direction and its right-hand side at azimuth 0.
    static func reference(for up: UpAxis) -> (forward: SIMD3<Float>, right: SIMD3<Float>) {
        let u = up.vector
        let forward = cross(u, up.axis == 0 ? SIMD3(0, 1, 0) : SIMD3(1, 0, 0))
        return (forward, cross(forward, u))
    }

    public var basis: Basis {
        let (f, r) = Self.reference(for: up)
        let u = up.vector
        let az = Double(azimuth) * .pi / 180
        let el = Double(elevation) * .pi / 180
        let (ca, sa, ce, se) = (Float(cos(az)), Float(sin(az)), Float(cos(el)), Float(sin(el)))
        let forward = ce * (ca * f + sa * r) - se * u
        // Horizontal, so that it stays defined looking straight up or down.
        let right = ca * r - sa * f
        return Basis(right: right, up: cross(right, forward), forward: forward)
    }

    public var eye: SIMD3<Float> { target - distance * basis.forward }

    /// Pixels per unit of xc/zc.
    public var focal: Float { Float(Double(height) / 2 / tan(Double(fieldOfView) * .pi / 360)) }

    /// Points nearer the eye than this are not drawn: a fixed fraction of the orbit distance keeps
    /// depth resolution sensible at any scale.
    public var near: Float { distance * 1e-3 }

    /// Where `point` lands: continuous pixel coordinates and its depth zc along the view
    /// direction, or nil when it is behind the near plane.
    public func project(_ point: SIMD3<Float>) -> (x: Float, y: Float, depth: Float)? {
        let b = basis
        let v = point - eye
        let z = dot(v, b.forward)
        guard z > near else { return nil }
        return (Float(width) / 2 + focal * dot(v, b.right) / z, Float(height) / 2 - focal * dot(v, b.up) / z, z)
    }

    /// The distance at which every finite point of `positions` (x y z triples) lies inside the
    /// image, with a small margin: the "reset view" of a viewer. Fitting the points themselves,
    /// not their bounding box, lets a room seen from inside fill the picture instead of the box's
    /// far corners deciding.
    public func fittingDistance(positions: UnsafeBufferPointer<Float>) -> Float {
        let b = basis
        let f = focal
        let (halfW, halfH) = (Float(width) / 2 * 0.92, Float(height) / 2 * 0.92)
        var needed: Float = 0
        var radius: Float = 0
        var nearest = Float.infinity
        for i in stride(from: 0, to: positions.count - 2, by: 3) {
            let p = SIMD3(positions[i], positions[i + 1], positions[i + 2])
            guard p.x.isFinite, p.y.isFinite, p.z.isFinite else { continue }
            let c = p - target
            let (x, y, z) = (dot(c, b.right), dot(c, b.up), dot(c, b.forward))
            // focal·|x| / (D + z) ≤ halfW  ⇔  D ≥ focal·|x| / halfW − z; likewise for y.
            needed = Swift.max(needed, f * abs(x) / halfW - z, f * abs(y) / halfH - z)
            radius = Swift.max(radius, (c * c).sum())
            nearest = Swift.min(nearest, z)
        }
        radius = radius.squareRoot()
        // A flat cloud seen edge on, or a line along the view axis, fits at the distance that puts
        // the eye on its nearest point, where the near plane culls it: keep the eye a tenth of
        // the radius in front of that point (which also gives a single point some distance).
        return radius > 0 ? Swift.max(needed, radius * 0.1 - Swift.min(nearest, 0)) : 1
    }

    /// The target moved across the view so that the projected points' extent is centred in the
    /// image (at the current distance): a cloud seen off-centre from its bounding box's centre
    /// (a room from its corner) is framed by what is visible of it.
    public func centred(on positions: UnsafeBufferPointer<Float>) -> OrbitCamera {
        var (minX, maxX, minY, maxY) = (Float.infinity, -Float.infinity, Float.infinity, -Float.infinity)
        for i in stride(from: 0, to: positions.count - 2, by: 3) {
            guard let q = project(SIMD3(positions[i], positions[i + 1], positions[i + 2])), q.x.isFinite, q.y.isFinite else { continue }
            (minX, maxX, minY, maxY) = (Swift.min(minX, q.x), Swift.max(maxX, q.x), Swift.min(minY, q.y), Swift.max(maxY, q.y))
        }
        guard minX <= maxX, minY <= maxY else { return self }
        // A pixel offset at the target's depth is distance / focal metres.
        let dx = ((minX + maxX) / 2 - Float(width) / 2) * distance / focal
        let dy = ((minY + maxY) / 2 - Float(height) / 2) * distance / focal
        var moved = self
        moved.target = target + dx * basis.right - dy * basis.up
        return moved
    }
}

@inline(__always) func cross(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> SIMD3<Float> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

@inline(__always) func dot(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Float { (a * b).sum() }
