import ArgumentParser
import CloudCore
import CloudPipeline
import CloudRender
import Foundation
import SafeIO

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw a PLY or PCD cloud as a PNG from an orbit camera, without a display or GPU.",
        discussion: """
            The camera orbits the target (default: the centre of the cloud's bounding box). Azimuth 0,
            elevation 0 is the cloud's own view: for a camera-frame cloud (up -y, the default for files)
            the view of the camera that took it. A world-frame file cloudgen wrote records its camera
            (PCD VIEWPOINT, a PLY comment): without --up, the up axis and the angles then start from
            that camera's view, upright in its world. With --up +z (world-frame rooms) azimuth 0 looks
            across the room along +y. Without --distance the whole cloud fits in view (a viewer's
            "reset view").
            """)

    @Argument(help: ArgumentHelp("The cloud to draw (.ply or .pcd).", valueName: "file"))
    var file: String

    @Option(help: ArgumentHelp("The PNG to write (with --turntable: the animated PNG; frames go to NAME_000.png ...).", valueName: "file"))
    var out: String

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Degrees around the up axis; 90 looks from the cloud's left, 180 from behind.", valueName: "deg"))
    var azimuth: Float = 0

    @Option(parsing: .unconditional, help: ArgumentHelp("Degrees above the target, -90...90 (90 looks straight down).", valueName: "deg"))
    var elevation: Float = 0

    @Option(parsing: .unconditional, help: ArgumentHelp("Metres from the target (default: the whole cloud fits).", valueName: "m"))
    var distance: Float?

    @Option(parsing: .unconditional, help: ArgumentHelp("Vertical field of view in degrees, 1...170.", valueName: "deg"))
    var fov: Float = RenderView.defaultFieldOfView

    @Option(help: ArgumentHelp("Picture size, up to 16384 on a side.", valueName: "wxh"))
    var size = "\(RenderView.defaultWidth)x\(RenderView.defaultHeight)"

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Side of each point's square in pixels, 1...64 (default: from the point count, 1...6).", valueName: "px"))
    var pointSize: Int?

    @Option(
        help: ArgumentHelp(
            "rgb, depth (jet: red near, blue far), height (along the up axis) or normal (default: rgb if the cloud has colors, else height).",
            valueName: "mode"))
    var color: String?

    @Option(help: ArgumentHelp("#rrggbb, or black, white, gray, dark.", valueName: "color"))
    var background = "dark"

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "The up axis: -y (camera frame, the default), +z (world-frame rooms), or any signed axis; without it a file's recorded camera decides.",
            valueName: "axis"))
    var up: String?

    @Flag(name: .customLong("edl"), help: "Eye-dome lighting: shade creases and edges so that shape reads without color.")
    var eyeDomeLighting = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Write N frames around the target (NAME_000.png ...) and an animated PNG, 2...360.", valueName: "n"))
    var turntable: Int?

    @Flag(help: "Write a frame of background even when the cloud has no finite point (otherwise that is an error).")
    var allowEmpty = false

    @Flag(help: "Print one JSON object describing the render on stdout, nothing else.")
    var json = false

    struct Report: Encodable {
        struct Camera: Encodable {
            var azimuth: Float
            var elevation: Float
            var distance: Float
            var fov: Float
            var target: [Float]
            var eye: [Float]
            var up: String
        }

        var path: String
        var points: Int
        var width: Int
        var height: Int
        var color: String
        var pointSize: Int
        var eyeDomeLighting: Bool
        /// Pixels of the first frame that show a point.
        var coveredPixels: Int
        var camera: Camera
        var files: [String]
        /// Every stage of the process, one after the other: together they are `totalMilliseconds`.
        var milliseconds: [String: Double]
        var totalMilliseconds: Double
    }

    func run() throws {
        // First: the report's first stage is what the process took to get here.
        let startup = StartupClock.milliseconds()
        var clock = Stopwatch()
        let (width, height) = try RenderArguments.size(size)
        let view = RenderView(
            width: width, height: height, azimuth: azimuth, elevation: elevation, distance: distance,
            fieldOfView: fov, up: try RenderArguments.up(up ?? "-y"))
        try view.validate()
        if let turntable, !(2...360).contains(turntable) {
            throw CloudError.badInput("--turntable \(turntable): needs a frame count within 2...360, e.g. 36")
        }
        if turntable != nil && AtomicFile.isWrittenInPlace(out) {
            throw CloudError.badInput(
                "\(out): --turntable writes numbered frames (NAME_000.png ...) beside --out, which a device or pipe cannot hold; name a file"
            )
        }
        try Console.claimStdout(for: [out], json: json)
        var preview = FilePreview(view: view)
        preview.followsRecordedCamera = up == nil
        preview.color = try color.map(RenderArguments.color)
        preview.pointSize = try pointSize.map(RenderArguments.pointSize)
        preview.background = try RenderArguments.background(background)
        preview.eyeDomeLighting = eyeDomeLighting
        preview.allowEmpty = allowEmpty
        let loaded = try preview.load(file, clock: &clock)
        let style = loaded.writer.style
        // A turntable's frames and its animation land together or not at all.
        let result = try OutputSet.all(subject: out) { try loaded.writer.write(to: out, turntable: turntable, clock: &clock) }
        var t = result.timings
        // The output set's commit renames the staged files into place: part of writing them.
        t.write += clock.lap()
        let total = startup + clock.total

        let first = result.cameras[0]
        let report = Report(
            path: file, points: loaded.points, width: width, height: height, color: style.color.rawValue, pointSize: style.pointSize,
            eyeDomeLighting: eyeDomeLighting, coveredPixels: result.coveredPixels,
            camera: .init(
                azimuth: first.azimuth, elevation: first.elevation, distance: first.distance, fov: first.fieldOfView,
                target: [first.target.x, first.target.y, first.target.z],
                eye: [first.eye.x, first.eye.y, first.eye.z], up: first.up.description),
            files: result.files,
            milliseconds: [
                "startup": startup, "read": loaded.readMilliseconds, "bounds": loaded.boundsMilliseconds, "framing": t.framing,
                "rasterise": t.rasterise, "shade": t.shade, "encode": t.encode, "write": t.write
            ],
            totalMilliseconds: total)
        if json {
            try Console.printJSON(report)
            return
        }
        let frames = result.files.count > 1 ? "\(result.files.count - 1) frames and an animated PNG" : "\(width)x\(height)"
        Console.report(
            String(
                format:
                    "rendered %@ (%d points, %@, point size %d) to %@: %@; camera %.2f m from the target, azimuth %.1f°, elevation %.1f°",
                file, loaded.points, style.color.rawValue, style.pointSize, out, frames, first.distance, first.azimuth, first.elevation))
        Console.report(
            String(
                format: "  start-up %.1f ms, read %.1f ms, bounds %.1f ms, framing %.1f ms, rasterise %.1f ms, shade %.1f ms, "
                    + "encode %.1f ms, write %.1f ms; total %.1f ms",
                startup, loaded.readMilliseconds, loaded.boundsMilliseconds, t.framing, t.rasterise, t.shade, t.encode, t.write, total))
    }
}
