import Foundation

/// One stored capture's row in the index. Its files are in the store's captures/ID/ folder.
public struct CaptureRecord: Equatable, Sendable {
    /// Axis-aligned bounds of the cloud's finite points, in metres.
    public struct Bounds: Equatable, Sendable {
        public var min: SIMD3<Double>
        public var max: SIMD3<Double>
        public init(min: SIMD3<Double>, max: SIMD3<Double>) {
            self.min = min
            self.max = max
        }
    }

    public var id: CaptureID
    public var created: Date
    /// The source spec or upload it came from ("upload", "synthetic:seed=3").
    public var source: String
    public var points: Int
    /// Nil for a cloud without points.
    public var bounds: Bounds?
    /// Size of the stored cloud file (`CaptureStore.cloudFileName`).
    public var bytes: Int
    public var frames: Int
    /// The capture's report as JSON text, stored and returned verbatim.
    public var report: String

    public init(id: CaptureID, created: Date, source: String, points: Int, bounds: Bounds?, bytes: Int, frames: Int, report: String) {
        self.id = id
        self.created = created
        self.source = source
        self.points = points
        self.bounds = bounds
        self.bytes = bytes
        self.frames = frames
        self.report = report
    }
}
