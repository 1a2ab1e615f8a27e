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

    public init(
        target: SIMD3<Float>, distance: Float, azimuth: Float, elevation: Float, fieldOfView: Float,
        up: UpAxis, width: Int, height: Int
    ) {
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
    /// direction, or nil when it is behind the near plane. For one point; loops over many take a
    /// `Projector` once, as this builds one (sin, cos, tan) on every call.
    public func project(_ point: SIMD3<Float>) -> (x: Float, y: Float, depth: Float)? {
        Projector(self).project(point)
    }

    /// The camera's basis, eye, focal length and near plane, worked out once, for loops that project
    /// many points with one camera.
    public struct Projector: Sendable {
        public let basis: Basis
        public let eye: SIMD3<Float>
        public let focal: Float
        public let near: Float
        let halfWidth: Float
        let halfHeight: Float

        public init(_ camera: OrbitCamera) {
            basis = camera.basis
            eye = camera.target - camera.distance * basis.forward
            focal = camera.focal
            near = camera.near
            (halfWidth, halfHeight) = (Float(camera.width) / 2, Float(camera.height) / 2)
        }

        /// As `OrbitCamera.project`, to the bit.
        @inline(__always) public func project(_ point: SIMD3<Float>) -> (x: Float, y: Float, depth: Float)? {
            let v = point - eye
            let z = dot(v, basis.forward)
            guard z > near else { return nil }
            return (halfWidth + focal * dot(v, basis.right) / z, halfHeight - focal * dot(v, basis.up) / z, z)
        }
    }
}

@inline(__always) func cross(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> SIMD3<Float> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

@inline(__always) func dot(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Float { (a * b).sum() }
