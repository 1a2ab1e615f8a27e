import CloudCore

/// World-frame rays through the pixel centres of one image, and which furniture each can hit.
///
/// The direction through pixel (u, v) is R ((u - cx) / fx, (v - cy) / fy, 1), with R the pose's
/// rotation. Its camera-frame z is 1, so a hit's ray parameter is its depth along the optical axis,
/// as depth cameras report.
///
/// Culling: a box's image lies inside the bounding rectangle of its eight projected corners, so a
/// ray through a pixel outside that rectangle (grown by a pixel against rounding) cannot hit it.
/// Most pixels then test the room's shell and one or two boxes instead of all of them.
struct PixelRays {
    private let corner: Vec3
    private let perColumn: Vec3
    private let perRow: Vec3
    private let footprints: [(u: ClosedRange<Int>, v: ClosedRange<Int>)]

    init(scene: SyntheticScene, pose: Pose, intrinsics k: CameraIntrinsics) {
        let r = pose.rotation
        let right = Vec3(r.0.x, r.1.x, r.2.x)
        let down = Vec3(r.0.y, r.1.y, r.2.y)
        let forward = Vec3(r.0.z, r.1.z, r.2.z)
        perColumn = right * (1 / k.fx)
        perRow = down * (1 / k.fy)
        corner = forward - perColumn * k.cx - perRow * k.cy
        let everywhere = (u: Int.min...Int.max, v: Int.min...Int.max)
        footprints = scene.solids.map { solid in
            var (u0, u1, v0, v1) = (Double.infinity, -Double.infinity, Double.infinity, -Double.infinity)
            for i in 0..<8 {
                let world = Vec3(
                    i & 1 == 0 ? solid.box.lo.x : solid.box.hi.x,
                    i & 2 == 0 ? solid.box.lo.y : solid.box.hi.y,
                    i & 4 == 0 ? solid.box.lo.z : solid.box.hi.z)
                let p = pose.inverseRotate(world.simd - pose.translation)
                // A corner at or behind the camera plane projects nowhere useful: test everywhere.
                guard p.z > 1e-9 else { return everywhere }
                let uv = k.project(p)
                (u0, u1, v0, v1) = (min(u0, uv.x), max(u1, uv.x), min(v0, uv.y), max(v1, uv.y))
            }
            let limit = Double(Int32.max)  // far off-image projections need no exact bound
            func clamp(_ x: Double) -> Int { Int(max(-limit, min(limit, x))) }
            return (
                u: clamp(u0.rounded(.down) - 1)...clamp(u1.rounded(.up) + 1),
                v: clamp(v0.rounded(.down) - 1)...clamp(v1.rounded(.up) + 1)
            )
        }
    }

    @inline(__always)
    func direction(u: Int, v: Int) -> Vec3 {
        corner + perColumn * Double(u) + perRow * Double(v)
    }

    /// Solids (bit i for solid i) whose footprint covers row `v`.
    func candidates(row v: Int) -> UInt64 {
        var mask: UInt64 = 0
        for (i, f) in footprints.enumerated() where f.v.contains(v) {
            mask |= 1 << UInt64(i)
        }
        return mask
    }

    /// Of a row's candidates, those whose footprint covers column `u`.
    @inline(__always)
    func candidates(_ row: UInt64, column u: Int) -> UInt64 {
        var mask = row
        var rest = row
        while rest != 0 {
            let i = rest.trailingZeroBitCount
            rest &= rest - 1
            if !footprints[i].u.contains(u) { mask &= ~(1 << UInt64(i)) }
        }
        return mask
    }
}
