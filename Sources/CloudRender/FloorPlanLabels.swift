/// Where each wall's label goes: beside the middle of its wall, clear of the line, preferably on
/// the room's outside; inside the picture, off every wall line, camera marker and label placed
/// before it.
/// When its first place fails one of these it tries the other side, then slides along the wall;
/// when every place fails one, the one that fails least wins (a label is never dropped).
struct FloorPlanLabels {
    struct Wall {
        /// Ends in pixels.
        var a: SIMD2<Double>
        var b: SIMD2<Double>
        var text: String
        /// +1 when the room's inside lies on the side of the normal (−dir.y, dir.x), −1 otherwise.
        var inside: Double
    }

    struct Placed: Equatable {
        var text: String
        /// The label's backing; the text sits `padding` inside it.
        var box: FloorPlanRect
    }

    let textScale: Int
    /// Half the wall line's thickness in pixels.
    let lineRadius: Double
    /// Where labels may go: the picture below the caption.
    let bounds: FloorPlanRect

    var padding: Int { textScale }

    /// Slides along the wall, as fractions of its length, in the order they are tried.
    private static let slides = [0, 0.25, -0.25, 0.4, -0.4]

    /// One label per wall with text, in the order given. `markers` are discs (centre, radius in
    /// pixels) to keep clear, such as the cameras.
    func place(
        _ walls: [Wall], avoiding lines: [(a: SIMD2<Double>, b: SIMD2<Double>)],
        markers: [(centre: SIMD2<Double>, radius: Double)] = []
    ) -> [Placed] {
        var placed: [Placed] = []
        for wall in walls where !wall.text.isEmpty {
            let size = SIMD2(
                Double(PixelFont.width(wall.text, scale: textScale) + 2 * padding),
                Double(PixelFont.glyphHeight * textScale + 2 * padding))
            let d = wall.b - wall.a
            let length = (d * d).sum().squareRoot()
            let direction = length > 0 ? d / length : SIMD2(1, 0)
            let normal = SIMD2(-direction.y, direction.x)
            // Far enough along the normal that the box's nearest corner clears the line by a gap.
            let clearance = lineRadius + 2 * Double(textScale) + abs(normal.x) * size.x / 2 + abs(normal.y) * size.y / 2
            let middle = (wall.a + wall.b) / 2
            var best: (cost: Int, box: FloorPlanRect)?
            search: for slide in Self.slides {
                for side in [-wall.inside, wall.inside] {
                    let centre = middle + direction * (slide * length) + normal * (side * clearance)
                    let (box, moved) = clamped(centre: centre, size: size)
                    var cost = moved ? 1 : 0
                    cost += lines.filter { box.touches(segment: $0.a, $0.b, radius: lineRadius + 1) }.count * 10
                    cost += markers.filter { box.touches(segment: $0.centre, $0.centre, radius: $0.radius + 1) }.count * 10
                    cost += placed.filter { box.overlaps($0.box) }.count * 100
                    if cost < best?.cost ?? .max { best = (cost, box) }
                    if cost == 0 { break search }
                }
            }
            if let best { placed.append(Placed(text: wall.text, box: best.box)) }
        }
        return placed
    }

    /// The box of `size` around `centre`, moved into `bounds` if it sticks out; whether it moved.
    private func clamped(centre: SIMD2<Double>, size: SIMD2<Double>) -> (FloorPlanRect, Bool) {
        let wanted = centre - size / 2
        let lowest = SIMD2(Double(bounds.x0), Double(bounds.y0))
        let highest = pointwiseMax(lowest, SIMD2(Double(bounds.x1), Double(bounds.y1)) - size)
        // A non-finite centre (a wall of non-finite ends never gets here) would stay NaN: put it at the corner.
        let corner = wanted.x.isFinite && wanted.y.isFinite ? pointwiseMin(pointwiseMax(wanted, lowest), highest) : lowest
        let x0 = Int(corner.x.rounded())
        let y0 = Int(corner.y.rounded())
        let box = FloorPlanRect(x0: x0, y0: y0, x1: x0 + Int(size.x), y1: y0 + Int(size.y))
        return (box, corner != wanted)
    }
}
