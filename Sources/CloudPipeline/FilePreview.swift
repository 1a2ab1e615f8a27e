import CloudCore
import CloudFiles
import CloudRender

/// A cloud file drawn as PNG from an orbit camera: `render` and the service's preview route (a
/// stored capture's cloud) both draw files here, so a picture does not depend on the door.
public struct FilePreview {
    public var view: RenderView
    /// Whether a file's recorded camera (a world-frame capture's) turns the view: the up axis and
    /// the angles then start from that camera's view, upright in its world. `render --up` says
    /// the up axis itself.
    public var followsRecordedCamera = true
    /// Nil: rgb for a cloud with colors, else height.
    public var color: ColorMode?
    /// Nil: from the point count and the picture's size.
    public var pointSize: Int?
    /// Nil: the renderer's dark background.
    public var background: RGB8?
    public var eyeDomeLighting = false
    /// Whether a cloud with no finite point is drawn as a frame of background rather than refused.
    public var allowEmpty = false

    public init(view: RenderView) {
        self.view = view
    }

    /// A file read and ready to draw: its writer draws it into a file, or a turntable of them.
    /// The drawing is a step of its own so that the CLI can land its files together
    /// (`OutputSet.all`) while a signal before it ends the process as usual.
    public struct Loaded {
        /// The file's points, finite or not.
        public var points: Int
        public var writer: PreviewWriter
        /// Reading the file; then the cloud's bounds and finite points (behind the framing and the point size).
        public var readMilliseconds: Double
        public var boundsMilliseconds: Double
    }

    /// Reads `input` and settles the view and the style. `origin` names the cloud in messages
    /// (default: `input`). Each stage is charged the time since `clock`'s previous lap, so that a
    /// caller lapping the same clock accounts for its whole run.
    public func load(_ input: String, origin: String? = nil, clock: inout Stopwatch) throws -> Loaded {
        let loaded = try CloudReader.read(input)
        let read = clock.lap()
        var view = view
        if followsRecordedCamera, let camera = loaded.header.viewpoint { view = view.turned(fromCamera: camera) }
        let renderer = PointRenderer(cloud: loaded.cloud, origin: origin ?? input)
        if renderer.bounds == nil && !allowEmpty {
            throw CloudError.badInput(
                .file(origin ?? input),
                "the cloud has no finite point to draw; pass \(switch: "allow-empty") to write a frame of background anyway")
        }
        let mode = color ?? renderer.defaultColorMode
        try renderer.check(mode)
        var style = RenderStyle(
            color: mode,
            pointSize: pointSize
                ?? RenderStyle.automaticPointSize(points: loaded.cloud.finiteCount, width: view.width, height: view.height),
            eyeDomeLighting: eyeDomeLighting)
        if let background { style.background = background }
        let bounds = clock.lap()
        return Loaded(
            points: loaded.cloud.count, writer: PreviewWriter(renderer: renderer, view: view, style: style), readMilliseconds: read,
            boundsMilliseconds: bounds)
    }
}
