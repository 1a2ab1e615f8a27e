import Foundation

/// What a floor plan of the measured room shows, in plan coordinates (metres, the report's frame
/// x and y): the CLI draws it with CloudRender's FloorPlanRenderer.
public struct RoomPlanData: Sendable {
    public struct Wall: Sendable {
        public var start: SIMD2<Double>
        public var end: SIMD2<Double>
        /// Its length with the uncertainty, or nil when an end was not seen.
        public var length: RoomReport.Measured?
    }

    public struct Camera: Sendable {
        public var position: SIMD2<Double>
        /// Where it looked, level unit vector; nil when it looked straight up or down.
        public var heading: SIMD2<Double>?
    }

    public var floorPoints: [SIMD2<Float>]
    public var otherPoints: [SIMD2<Float>]
    public var walls: [Wall]
    public var closed: Bool
    public var cameras: [Camera]
}
