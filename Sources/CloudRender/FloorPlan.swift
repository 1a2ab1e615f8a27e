/// What a top-down floor plan shows, in plan coordinates: metres, x to the right and y up on the
/// page. The measurement projects the room onto its floor and fills this in; `FloorPlanRenderer`
/// draws it. Non-finite coordinates anywhere are left out of the picture, never an error.
public struct FloorPlan: Sendable {
    /// One measured wall as a segment seen from above, with the text drawn beside it.
    public struct Wall: Equatable, Sendable {
        public var a: SIMD2<Double>
        public var b: SIMD2<Double>
        /// e.g. "3.42 m"; nil draws no label.
        public var label: String?

        public init(a: SIMD2<Double>, b: SIMD2<Double>, label: String? = nil) {
            self.a = a
            self.b = b
            self.label = label
        }
    }

    /// Where a capture's camera stood, and which way it looked (any length; nil or zero draws no tick).
    public struct Camera: Equatable, Sendable {
        public var position: SIMD2<Double>
        public var heading: SIMD2<Double>?

        public init(position: SIMD2<Double>, heading: SIMD2<Double>? = nil) {
            self.position = position
            self.heading = heading
        }
    }

    /// Points of the floor, drawn as a light occupancy layer; the picture is framed around them,
    /// the walls and the cameras.
    public var floorPoints: [SIMD2<Float>]
    /// Everything else seen (walls, furniture), drawn fainter over the floor. Not used to frame
    /// the picture unless nothing else is there: what shows through a window or a doorway would
    /// otherwise shrink the room.
    public var otherPoints: [SIMD2<Float>]
    public var walls: [Wall]
    /// The walls meet into a closed room polygon; an open outline is drawn dashed.
    public var outlineClosed: Bool
    public var cameras: [Camera]
    /// One line at the top, e.g. "4.02 x 3.01 m, 12.1 m², h 2.50 m".
    public var caption: String?

    public init(
        floorPoints: [SIMD2<Float>] = [], otherPoints: [SIMD2<Float>] = [], walls: [Wall] = [],
        outlineClosed: Bool = true, cameras: [Camera] = [], caption: String? = nil
    ) {
        self.floorPoints = floorPoints
        self.otherPoints = otherPoints
        self.walls = walls
        self.outlineClosed = outlineClosed
        self.cameras = cameras
        self.caption = caption
    }
}
