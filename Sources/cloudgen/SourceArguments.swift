import ArgumentParser
import CloudCapture
import CloudCore
import CloudPipeline

/// Where frames come from and which of them to take: the flags `capture` and `measure --source` share.
struct SourceArguments: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Where frames come from: a source spec (listed in 'cloudgen capture --help', every key in Docs/cli.md).", valueName: "spec"))
    var source: String?

    /// `--source` parsed (its errors are the spec's, exit 2); nil without one (the first camera).
    func sourceSpec() throws -> SourceSpec? {
        try source.map(SourceSpec.init(parsing:))
    }

    @Option(
        help: ArgumentHelp(
            "Calibration for rgbd: and dataset sources: Open3D PinholeCameraIntrinsic JSON, PCL grabber XML or cloudgen JSON (Docs/formats.md).",
            valueName: "file"))
    var intrinsics: String?

    @Option(help: ArgumentHelp("Raw depth units per metre for integer depth images (1000 for millimetres, 5000 for TUM).", valueName: "s"))
    var depthScale: Double?

    @Option(
        help:
            "How rgbd: depth images are encoded: standard, nyu (raw Kinect disparity, NYU Depth v2) or sun (SUN RGB-D's bit-rotated millimetres)."
    )
    var depthEncoding: DepthFileEncoding = .standard

    @Option(
        help: ArgumentHelp(
            "Phone exports with a confidence map (polycam:, stray:): keep depth of at least this ARKit confidence: 0 all, 1 medium and high (default), 2 high only.",
            valueName: "level"))
    var minConfidence: Int?

    @Option(
        help: ArgumentHelp(
            "Photos with relative depth (photo:): a pixel of the color image as shown and its true distance from the camera, which scales the depth to metres.",
            valueName: "x,y=metres"),
        transform: { try KnownDistance(parsing: $0) })
    var knownDistance: KnownDistance?

    @Flag(help: "Photos (photo:): keep only the subject that the photo's portrait effects matte marks.")
    var matte = false

    @Option(help: "camera (x right, y down, z forward) or world (the source's own frame; rooms: floor corner, z up).")
    var frame: OutputFrame = .camera

    @Option(
        help: ArgumentHelp(
            "Keep depth within MIN,MAX metres along the optical axis (MAX may be inf). Applied at back-projection, before the filters, wherever it stands.",
            valueName: "min,max"),
        transform: DepthRange.argument)
    var range: DepthRange?

    @Option(
        help: ArgumentHelp(
            "Frames to take: a number, or 'all' that the source has (default: 1, or all with --fuse). A sequence without --fuse writes one file per frame, NAME_000.ply ...",
            valueName: "n|all"))
    var frames: FrameCount?

    @Option(help: ArgumentHelp("Stop taking frames after this many seconds (with no --frames: as many frames as arrive).", valueName: "s"))
    var duration: Double?

    @Flag(help: "Merge a posed sequence into one world-frame cloud.")
    var fuse = false

    /// --frames as given, else 1, or all with --fuse or --duration.
    var frameLimit: Int? { (frames ?? (fuse || duration != nil ? .all : .count(1))).limit }

    var sourceOptions: SourceOptions {
        SourceOptions(
            intrinsicsPath: intrinsics, depthUnitsPerMetre: depthScale, depthEncoding: depthEncoding, minConfidence: minConfidence,
            knownDistance: knownDistance, matte: matte)
    }
}
