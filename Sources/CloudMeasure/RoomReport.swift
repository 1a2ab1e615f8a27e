import CloudCore
import Foundation

/// What `cloudgen measure --json` prints and `GET /v1/captures/{id}/measure` answers: schema
/// `cloudgen.measure/1`, documented key by key in Docs/measure.md. Lengths are metres, areas
/// square metres. A number that was not seen is null, with its reason in `reasons`; every
/// measured number carries its 1-sigma uncertainty.
public struct RoomReport: Codable, Equatable, Sendable {
    public static let schemaVersion = "cloudgen.measure/1"

    /// A number and its 1-sigma uncertainty.
    public struct Measured: Codable, Equatable, Sendable {
        public var value: Double
        public var sigma: Double
    }

    public struct Points: Codable, Equatable, Sendable {
        /// In the cloud, with NaN placeholders.
        public var input: Int
        public var finite: Int
        /// After the voxel grid of `leaf` metres, what the planes were fitted to.
        public var working: Int
        public var leaf: Double
    }

    public struct Up: Codable, Equatable, Sendable {
        /// Unit vector in the cloud's coordinates.
        public var vector: [Double]
        /// "flag" (--up), "source" (the source knows gravity) or "planes" (found in the data).
        public var method: String
        /// Angle between up and the floor's normal, degrees; null without a floor.
        @NullWhenAbsent public var floorTiltDegrees: Double?
    }

    /// The gravity-aligned frame the plan and the extents are in, given in the cloud's coordinates.
    public struct Frame: Codable, Equatable, Sendable {
        public var origin: [Double]
        public var x: [Double]
        public var y: [Double]
        public var z: [Double]
    }

    /// A fitted plane: a x + b y + c z + d = 0 in the cloud's coordinates, unit normal.
    public struct Surface: Codable, Equatable, Sendable {
        public var plane: [Double]
        public var points: Int
        /// Area the points cover (points x leaf²).
        public var area: Double
        /// Root mean square distance of its points from the plane.
        public var rms: Double
    }

    public struct Wall: Codable, Equatable, Sendable {
        /// Counter-clockwise around the room (seen from above) when the outline is closed.
        public var index: Int
        /// Corner to corner; null when an end was not seen (see `reason`).
        @NullWhenAbsent public var length: Measured?
        /// The span of its points.
        public var visibleLength: Double
        /// Floor to ceiling at the wall's middle; null without both.
        @NullWhenAbsent public var height: Measured?
        /// Its top above the floor, as far as it was seen.
        public var visibleTop: Double
        /// Level unit normal into the room, in the cloud's coordinates.
        public var normal: [Double]
        public var surface: Surface
        /// Plan coordinates (frame x, y) of its ends: the corners, or where its points end.
        public var start: [Double]
        public var end: [Double]
        /// Part of the closed outline.
        public var inOutline: Bool
        @NullWhenAbsent public var reason: String?
    }

    /// A plane that is not floor, ceiling or wall (table tops, shelves, boxes, a bookcase's front).
    public struct Clutter: Codable, Equatable, Sendable {
        /// "level" or "vertical".
        public var kind: String
        public var reason: String
        /// Its top above the floor (level: its height).
        public var top: Double
        public var surface: Surface
    }

    public struct Extents: Codable, Equatable, Sendable {
        @NullWhenAbsent public var x: Measured?
        @NullWhenAbsent public var y: Measured?
        @NullWhenAbsent public var z: Measured?
        /// "outline" (between the walls' corners) or "points" (the span of the floor and walls' points).
        public var from: String
    }

    public struct Cameras: Codable, Equatable, Sendable {
        public var count: Int
        /// The camera's height above the floor, for a single frame.
        @NullWhenAbsent public var height: Measured?
        /// Where each camera stood, in the frame (x, y on the plan, z above the floor).
        public var positions: [[Double]]
    }

    public var schema: String
    public var source: String
    public var units: String
    public var points: Points
    public var up: Up
    public var frame: Frame
    @NullWhenAbsent public var floor: Surface?
    @NullWhenAbsent public var ceiling: Surface?
    @NullWhenAbsent public var height: Measured?
    /// "closed" (the walls meet around the room) or "open" (area and perimeter from the floor's outline).
    public var outline: String
    @NullWhenAbsent public var area: Measured?
    @NullWhenAbsent public var perimeter: Measured?
    /// The outline's corners on the plan, counter-clockwise; [] when open.
    public var corners: [[Double]]
    public var extents: Extents
    public var walls: [Wall]
    public var clutter: [Clutter]
    public var cameras: Cameras
    /// Why a null is null, by key ("height", "area", "floor", ...).
    public var reasons: [String: String]
    public var warnings: [String]
    public var milliseconds: Double
}
