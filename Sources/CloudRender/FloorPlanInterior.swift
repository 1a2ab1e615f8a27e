/// Which side of each wall the room is on, so that labels go outside it: for a closed outline the
/// even-odd rule over all the walls (right for any simple polygon, L-shapes and their inner corner
/// included); for an open one, the side with more floor points next to the wall; failing both,
/// the side facing the middle of all the walls' ends.
struct FloorPlanInterior {
    /// Wall ends in pixels.
    let walls: [(a: SIMD2<Double>, b: SIMD2<Double>)]
    let closed: Bool
    let floor: FloorPlanOccupancy

    /// +1 when the room lies on the side of the wall's normal (−dir.y, dir.x), −1 otherwise.
    func side(of wall: (a: SIMD2<Double>, b: SIMD2<Double>), probe: Double) -> Double {
        let d = wall.b - wall.a
        let length = (d * d).sum().squareRoot()
        let normal = length > 0 ? SIMD2(-d.y, d.x) / length : SIMD2(0, 1)
        let middle = (wall.a + wall.b) / 2
        let (plus, minus) = (middle + normal * probe, middle - normal * probe)
        if closed {
            let (inPlus, inMinus) = (contains(plus), contains(minus))
            if inPlus != inMinus { return inPlus ? 1 : -1 }
        } else {
            let radius = Swift.max(1, Int(probe) / floor.cell)
            let (onPlus, onMinus) = (
                floor.points(near: plus.x, plus.y, radius: radius),
                floor.points(near: minus.x, minus.y, radius: radius)
            )
            if onPlus != onMinus { return onPlus > onMinus ? 1 : -1 }
        }
        let ends = walls.flatMap { [$0.a, $0.b] }
        let centre = ends.reduce(SIMD2<Double>.zero, +) / Double(Swift.max(ends.count, 1))
        return ((centre - middle) * normal).sum() >= 0 ? 1 : -1
    }

    /// Even-odd rule: a ray to the right from `p` crosses the walls an odd number of times.
    private func contains(_ p: SIMD2<Double>) -> Bool {
        var inside = false
        for (a, b) in walls where (a.y > p.y) != (b.y > p.y) {
            let x = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x)
            if x > p.x { inside.toggle() }
        }
        return inside
    }
}
