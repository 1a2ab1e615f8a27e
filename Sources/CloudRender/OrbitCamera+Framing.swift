/// The "reset view": the distance and target that frame a cloud. Each is one pass over the points
/// with the camera's basis worked out before the loop (`Projector`), split across the cores for
/// large clouds; the parts are combined by min and max alone, so the camera is the one a single
/// straightforward pass gives, to the bit, whatever the core count.
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
        let fit = ParallelPoints.reduce(positions.count / 3) { range -> Fit in
            var fit = Fit()
            for i in range {
                let p = SIMD3(positions[3 * i], positions[3 * i + 1], positions[3 * i + 2])
                guard p.x.isFinite, p.y.isFinite, p.z.isFinite else { continue }
                let c = p - target
                let (x, y, z) = (dot(c, b.right), dot(c, b.up), dot(c, b.forward))
                // focal·|x| / (D + z) ≤ halfW  ⇔  D ≥ focal·|x| / halfW − z; likewise for y.
                fit.needed = Swift.max(fit.needed, f * abs(x) / halfW - z, f * abs(y) / halfH - z)
                fit.radiusSquared = Swift.max(fit.radiusSquared, (c * c).sum())
                fit.nearest = Swift.min(fit.nearest, z)
            }
            return fit
        } combine: { $0.merged(with: $1) }
        let radius = fit.radiusSquared.squareRoot()
        // A flat cloud seen edge on, or a line along the view axis, fits at the distance that puts
        // the eye on its nearest point, where the near plane culls it: keep the eye a tenth of
        // the radius in front of that point (which also gives a single point some distance).
        return radius > 0 ? Swift.max(fit.needed, radius * 0.1 - Swift.min(fit.nearest, 0)) : 1
    }

    /// The target moved across the view so that the projected points' extent is centred in the
    /// image (at the current distance): a cloud seen off-centre from its bounding box's centre
    /// (a room from its corner) is framed by what is visible of it.
    public func centred(on positions: UnsafeBufferPointer<Float>) -> OrbitCamera {
        let projector = Projector(self)
        let extent = ParallelPoints.reduce(positions.count / 3) { range -> Extent in
            var e = Extent()
            for i in range {
                guard let q = projector.project(SIMD3(positions[3 * i], positions[3 * i + 1], positions[3 * i + 2])),
                      q.x.isFinite, q.y.isFinite else { continue }
                (e.minX, e.maxX) = (Swift.min(e.minX, q.x), Swift.max(e.maxX, q.x))
                (e.minY, e.maxY) = (Swift.min(e.minY, q.y), Swift.max(e.maxY, q.y))
            }
            return e
        } combine: { $0.merged(with: $1) }
        guard extent.minX <= extent.maxX, extent.minY <= extent.maxY else { return self }
        // A pixel offset at the target's depth is distance / focal metres.
        let dx = ((extent.minX + extent.maxX) / 2 - Float(width) / 2) * distance / projector.focal
        let dy = ((extent.minY + extent.maxY) / 2 - Float(height) / 2) * distance / projector.focal
        var moved = self
        moved.target = target + dx * projector.basis.right - dy * projector.basis.up
        return moved
    }

    /// What `fittingDistance` gathers from a range of points.
    struct Fit {
        var needed: Float = 0
        var radiusSquared: Float = 0
        var nearest = Float.infinity

        func merged(with other: Fit) -> Fit {
            Fit(needed: Swift.max(needed, other.needed), radiusSquared: Swift.max(radiusSquared, other.radiusSquared),
                nearest: Swift.min(nearest, other.nearest))
        }
    }

    /// The projected points' extent in pixels; empty (min above max) until a point lands.
    struct Extent {
        var minX = Float.infinity, maxX = -Float.infinity, minY = Float.infinity, maxY = -Float.infinity

        func merged(with other: Extent) -> Extent {
            Extent(minX: Swift.min(minX, other.minX), maxX: Swift.max(maxX, other.maxX),
                   minY: Swift.min(minY, other.minY), maxY: Swift.max(maxY, other.maxY))
        }
    }
}
