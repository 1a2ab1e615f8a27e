import CloudCore

/// The simulated room's plan, for checking measurements against: what `cloudgen measure` should
/// find. World frame (the frame the camera's poses are given in): z up, the floor at z = 0, the
/// walls turned by the scene's yaw.
///
/// Walls are the room's own: their full length counts even where a doorway opens in them or
/// furniture stands before them, and furniture faces are never walls, however tall.
public struct RoomTruth: Sendable {
    public struct Wall: Sendable {
        public let wall: SyntheticScene.Wall
        /// The outline edge it stands on: from `outline[edge]` to `outline[(edge + 1) % n]`.
        public let edge: Int
        public let start: SIMD2<Double>
        public let end: SIMD2<Double>
        /// Horizontal unit normal pointing into the room.
        public let inwardNormal: SIMD2<Double>

        public var length: Double {
            let v = end - start
            return (v * v).sum().squareRoot()
        }
    }

    /// The doorway of `door=1`: in which wall, how wide and how high.
    public struct Doorway: Sendable {
        public let wall: SyntheticScene.Wall
        public let width: Double
        public let height: Double
    }

    /// Floor to ceiling.
    public let height: Double
    /// The world frame's up: the floor's normal.
    public let up = SIMD3<Double>(0, 0, 1)
    /// The floor's corners, counter-clockwise seen from above (4 for a box room, 6 for an L).
    public let outline: [SIMD2<Double>]
    /// One per outline edge, in outline order.
    public let walls: [Wall]
    public let doorway: Doorway?

    init(scene: SyntheticScene) {
        let (w, d) = (scene.size.x, scene.size.y)
        var corners: [(SIMD2<Double>, SyntheticScene.Wall)]  // each corner with the wall that starts there
        switch scene.shape {
        case .box:
            corners = [(SIMD2(0, 0), .south), (SIMD2(w, 0), .east), (SIMD2(w, d), .north), (SIMD2(0, d), .west)]
        case .L:
            let f = SyntheticShape.notchFraction
            corners = [
                (SIMD2(0, 0), .south), (SIMD2((1 - f) * w, 0), .notchWest), (SIMD2((1 - f) * w, f * d), .notchNorth),
                (SIMD2(w, f * d), .east), (SIMD2(w, d), .north), (SIMD2(0, d), .west)
            ]
        }
        let place = scene.roomToWorld
        let outline = corners.map { c -> SIMD2<Double> in
            let p = place.apply(SIMD3(c.0.x, c.0.y, 0))
            return SIMD2(p.x, p.y)
        }
        self.outline = outline
        walls = corners.indices.map { i in
            let (a, b) = (outline[i], outline[(i + 1) % outline.count])
            let along = (b - a) / ((b - a) * (b - a)).sum().squareRoot()
            // Counter-clockwise: the inside is on the left of each edge.
            return Wall(wall: corners[i].1, edge: i, start: a, end: b, inwardNormal: SIMD2(-along.y, along.x))
        }
        height = scene.size.z
        doorway = scene.doorway.map { Doorway(wall: .east, width: $0.y.upperBound - $0.y.lowerBound, height: $0.height) }
    }

    /// The outline's area (shoelace formula).
    public var floorArea: Double {
        outline.indices.reduce(0) { sum, i in
            let (a, b) = (outline[i], outline[(i + 1) % outline.count])
            return sum + (a.x * b.y - b.x * a.y) / 2
        }
    }

    public var perimeter: Double {
        walls.reduce(0) { $0 + $1.length }
    }

    public func wall(_ name: SyntheticScene.Wall) -> Wall? {
        walls.first { $0.wall == name }
    }
}

extension SyntheticScene {
    /// The room's plan in the world frame.
    public var truth: RoomTruth { RoomTruth(scene: self) }
}
