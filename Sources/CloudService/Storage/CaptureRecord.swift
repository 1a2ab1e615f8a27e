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
    /// Kept to the millisecond, as the index does.
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
    /// What the user calls it, set at upload and changed with PATCH.
    public var labels: CaptureLabels
    /// The file name each uploaded part came with, by part (`depth`: `kitchen_depth.png`); empty
    /// for a capture on the server's side.
    public var uploadedFiles: [String: String]
    /// Counts the changes of `labels`, so that the document's ETag changes with them.
    public var revision: Int

    public init(
        id: CaptureID, created: Date, source: String, points: Int, bounds: Bounds?, bytes: Int, frames: Int, report: String,
        labels: CaptureLabels = CaptureLabels(), uploadedFiles: [String: String] = [:], revision: Int = 0
    ) {
        self.id = id
        self.created = created.wholeMilliseconds
        self.source = source
        self.points = points
        self.bounds = bounds
        self.bytes = bytes
        self.frames = frames
        self.report = report
        self.labels = labels
        self.uploadedFiles = uploadedFiles
        self.revision = revision
    }
}

/// A capture's name, tags and note: the user's words for it, searchable in the listing.
public struct CaptureLabels: Equatable, Sendable {
    public var name: String?
    /// In the order given, each once.
    public var tags: [String]
    public var note: String?

    public init(name: String? = nil, tags: [String] = [], note: String? = nil) {
        self.name = name
        self.tags = tags
        self.note = note
    }
}
