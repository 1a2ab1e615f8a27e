/// The "reset view": the distance and target that frame a cloud. Each is one pass over the points
/// with the camera's basis worked out before the loop (`Projector`), eight points at a time
/// (`PointLanes`), split across the cores for large clouds. Every point's figures are worked out
/// with the operations of the one-point formulas in the same order, and the results are combined
/// by min and max alone, so the camera is the one a straightforward pass point by point gives, to
/// the bit, whatever the lanes and the core count.
extension OrbitCamera {
    /// The distance at which every finite point of `positions` (x y z triples) lies inside the
    /// image, with a small margin: the "reset view" of a viewer. Fitting the points themselves,
    /// not their bounding box, lets a room seen from inside fill the picture instead of the box's
    /// far corners deciding.
    public func fittingDistance(positions: UnsafeBufferPointer<Float>) -> Float {
        let b = basis
        let f = focal
        let target = target
        let (halfW, halfH) = (Float(width) / 2 * 0.92, Float(height) / 2 * 0.92)
        let fit = ParallelPoints.reduce(PointLanes.blocks(positions), points: positions.count / 3) { blocks -> Fit in
            var fit = Fit()
            for block in blocks {
                let p = PointLanes(positions, block: block)
                let (cx, cy, cz) = (p.x - target.x, p.y - target.y, p.z - target.z)
                // As dot(c, v) works it out for one point: the products added left to right.
                let x = cx * b.right.x + cy * b.right.y + cz * b.right.z
                let y = cx * b.up.x + cy * b.up.y + cz * b.up.z
                let z = cx * b.forward.x + cy * b.forward.y + cz * b.forward.z
                // focal·|x| / (D + z) ≤ halfW  ⇔  D ≥ focal·|x| / halfW − z; likewise for y.
                let needed = PointLanes.max(f * PointLanes.max(x, -x) / halfW - z, f * PointLanes.max(y, -y) / halfH - z)
                // Lanes of points that are not finite (and past the end) take no part.
                let finite = p.finite
                fit.needed = PointLanes.max(fit.needed, needed.replacing(with: 0, where: .!finite))
                fit.radiusSquared = PointLanes.max(fit.radiusSquared, (cx * cx + cy * cy + cz * cz).replacing(with: 0, where: .!finite))
                fit.nearest = PointLanes.min(fit.nearest, z.replacing(with: .infinity, where: .!finite))
            }
            return fit
        } combine: {
            $0.merged(with: $1)
        }
        let radius = fit.radiusSquared.max().squareRoot()
        let (needed, nearest) = (fit.needed.max(), fit.nearest.min())
        // A flat cloud seen edge on, or a line along the view axis, fits at the distance that puts
        // the eye on its nearest point, where the near plane culls it: keep the eye a tenth of
        // the radius in front of that point (which also gives a single point some distance).
        return radius > 0 ? Swift.max(needed, radius * 0.1 - Swift.min(nearest, 0)) : 1
    }

    /// The target moved across the view so that the projected points' extent is centred in the
    /// image (at the current distance): a cloud seen off-centre from its bounding box's centre
    /// (a room from its corner) is framed by what is visible of it.
    public func centred(on positions: UnsafeBufferPointer<Float>) -> OrbitCamera {
        let projector = Projector(self)
        let (eye, forward, right, up) = (projector.eye, projector.basis.forward, projector.basis.right, projector.basis.up)
        let (focal, near, halfW, halfH) = (projector.focal, projector.near, projector.halfWidth, projector.halfHeight)
        let lanes = ParallelPoints.reduce(PointLanes.blocks(positions), points: positions.count / 3) { blocks -> Extent in
            var e = Extent()
            for block in blocks {
                let p = PointLanes(positions, block: block)
                // Projector.project, lane by lane, in the same order of operations.
                let (vx, vy, vz) = (p.x - eye.x, p.y - eye.y, p.z - eye.z)
                let z = vx * forward.x + vy * forward.y + vz * forward.z
                let x = halfW + focal * (vx * right.x + vy * right.y + vz * right.z) / z
                let y = halfH - focal * (vx * up.x + vy * up.y + vz * up.z) / z
                // Behind the near plane, or not finite (NaN fails every comparison): no part.
                let lands = (z .> near) .& ((x - x) .== 0) .& ((y - y) .== 0)
                e.minX = PointLanes.min(e.minX, x.replacing(with: .infinity, where: .!lands))
                e.maxX = PointLanes.max(e.maxX, x.replacing(with: -.infinity, where: .!lands))
                e.minY = PointLanes.min(e.minY, y.replacing(with: .infinity, where: .!lands))
                e.maxY = PointLanes.max(e.maxY, y.replacing(with: -.infinity, where: .!lands))
            }
            return e
        } combine: {
            $0.merged(with: $1)
        }
        let extent = (minX: lanes.minX.min(), maxX: lanes.maxX.max(), minY: lanes.minY.min(), maxY: lanes.maxY.max())
        guard extent.minX <= extent.maxX, extent.minY <= extent.maxY else { return self }
        // A pixel offset at the target's depth is distance / focal metres.
        let dx = ((extent.minX + extent.maxX) / 2 - Float(width) / 2) * distance / projector.focal
        let dy = ((extent.minY + extent.maxY) / 2 - Float(height) / 2) * distance / projector.focal
        var moved = self
        moved.target = target + dx * projector.basis.right - dy * projector.basis.up
        return moved
    }

    /// What `fittingDistance` gathers, lane by lane.
    struct Fit {
        var needed = PointLanes.Lanes(repeating: 0)
        var radiusSquared = PointLanes.Lanes(repeating: 0)
        var nearest = PointLanes.Lanes(repeating: .infinity)

        func merged(with other: Fit) -> Fit {
            Fit(
                needed: PointLanes.max(needed, other.needed), radiusSquared: PointLanes.max(radiusSquared, other.radiusSquared),
                nearest: PointLanes.min(nearest, other.nearest))
        }
    }

    /// The projected points' extent in pixels, lane by lane; empty (min above max) until a point lands.
    struct Extent {
        var minX = PointLanes.Lanes(repeating: .infinity), maxX = PointLanes.Lanes(repeating: -.infinity)
        var minY = PointLanes.Lanes(repeating: .infinity), maxY = PointLanes.Lanes(repeating: -.infinity)

        func merged(with other: Extent) -> Extent {
            Extent(
                minX: PointLanes.min(minX, other.minX), maxX: PointLanes.max(maxX, other.maxX),
                minY: PointLanes.min(minY, other.minY), maxY: PointLanes.max(maxY, other.maxY))
        }
    }
}

/// Eight points of an x y z buffer, one coordinate per vector, so that a pass over a cloud does
/// eight points per instruction. Lanes past the cloud's end are NaN, which every pass leaves out
/// as it does a point that is not finite.
struct PointLanes {
    typealias Lanes = SIMD8<Float>
    var x: Lanes
    var y: Lanes
    var z: Lanes

    /// Blocks of eight points that cover `positions`.
    static func blocks(_ positions: UnsafeBufferPointer<Float>) -> Int { (positions.count / 3 + 7) / 8 }

    @inline(__always) init(_ p: UnsafeBufferPointer<Float>, block: Int) {
        let first = 8 * block
        let count = p.count / 3
        if first + 8 <= count {
            let b = 3 * first
            x = Lanes(p[b], p[b + 3], p[b + 6], p[b + 9], p[b + 12], p[b + 15], p[b + 18], p[b + 21])
            y = Lanes(p[b + 1], p[b + 4], p[b + 7], p[b + 10], p[b + 13], p[b + 16], p[b + 19], p[b + 22])
            z = Lanes(p[b + 2], p[b + 5], p[b + 8], p[b + 11], p[b + 14], p[b + 17], p[b + 20], p[b + 23])
        } else {
            (x, y, z) = (Lanes(repeating: .nan), Lanes(repeating: .nan), Lanes(repeating: .nan))
            for lane in 0..<(count - first) {
                (x[lane], y[lane], z[lane]) = (p[3 * (first + lane)], p[3 * (first + lane) + 1], p[3 * (first + lane) + 2])
            }
        }
    }

    /// The larger (smaller) of each pair of lanes, as one compare and one blend: the standard
    /// library's pointwiseMax goes lane by lane through a call. Its NaN rules are not needed: a
    /// lane whose point is not finite is replaced before it reaches a running min or max.
    @inline(__always) static func max(_ a: Lanes, _ b: Lanes) -> Lanes { a.replacing(with: b, where: b .> a) }
    @inline(__always) static func min(_ a: Lanes, _ b: Lanes) -> Lanes { a.replacing(with: b, where: b .< a) }

    /// Lanes whose three coordinates are all finite (x − x is NaN for NaN and the infinities).
    var finite: SIMDMask<SIMD8<Int32>> { (x - x) + (y - y) + (z - z) .== 0 }
}
