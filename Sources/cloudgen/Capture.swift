import ArgumentParser
import CloudCapture
import CloudCore
import CloudIO
import CloudPCL
import CloudPipeline
import Foundation

extension DepthFileEncoding: ExpressibleByArgument {}

struct Capture: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Capture a frame from a source and write it as a colored point cloud.",
        discussion: """
            Sources (Docs/cli.md has every key):
              synthetic[:room=WxDxH,seed=N,noise=0|1,depth=WxH,color=WxH,format=...,distortion=0|1,
                        reference=WxH,path=orbit|walk,frames=N]   the built-in simulated camera
              rgbd:COLOR,DEPTH   one image pair (with --intrinsics, --depth-scale, --depth-encoding)
              tum:DIR  redwood:DIR  pclgrabber:DIR   dataset folders
              bundle:DIR   a capture bundle (phone capture format, or written with --bundle)
              kinect[:INDEX]   Kinect v1 through libfreenect
              openni2[:URI|FILE.oni]   OpenNI2 camera (Xtion, Carmine) or recording
            Without --source the first attached depth camera is used ('cloudgen devices' lists them).
            Ctrl-C stops a capture early and writes the frames taken so far.
            Nothing is dropped or rescaled silently: --json reports the scaled intrinsics, the depth
            format and how many pixels each stage kept.
            """)

    @Option(help: ArgumentHelp("Where frames come from (see above).", valueName: "spec"))
    var source: String?

    @Option(help: ArgumentHelp("Calibration for rgbd: and dataset sources: Open3D PinholeCameraIntrinsic JSON, PCL grabber XML or cloudgen JSON (Docs/formats.md).", valueName: "file"))
    var intrinsics: String?

    @Option(help: ArgumentHelp("Raw depth units per metre for integer depth images (1000 for millimetres, 5000 for TUM).", valueName: "s"))
    var depthScale: Double?

    @Option(help: "How rgbd: depth images are encoded: standard, nyu (raw Kinect disparity, NYU Depth v2) or sun (SUN RGB-D's bit-rotated millimetres).")
    var depthEncoding: DepthFileEncoding = .standard

    @Option(help: "camera (x right, y down, z forward) or world (the source's own frame; rooms: floor corner, z up).")
    var frame: OutputFrame = .camera

    @Option(help: ArgumentHelp("Keep depth within MIN,MAX metres along the optical axis (MAX may be inf). Applied at back-projection, before the filters, wherever it stands.", valueName: "min,max"))
    var range: DepthRange?

    @Option(help: ArgumentHelp("Frames to take: a number, or 'all' that the source has (default: 1, or all with --fuse). A sequence without --fuse writes one file per frame, NAME_000.ply ...", valueName: "n|all"))
    var frames: FrameCount?

    @Option(help: ArgumentHelp("Stop taking frames after this many seconds (with no --frames: as many frames as arrive).", valueName: "s"))
    var duration: Double?

    @Flag(help: "Merge a posed sequence into one world-frame cloud.")
    var fuse = false

    @OptionGroup var output: CloudOutputOptions

    @OptionGroup(title: "Filters, run in the order given") var filters: FilterOptions

    @Option(help: ArgumentHelp("Also write each frame as an RGBD image folder (color/ and 16-bit millimetre depth/ PNGs, camera_intrinsic.json, trajectory.log) that Open3D and redwood: read.", valueName: "dir"))
    var rgbd: String?

    @Option(help: ArgumentHelp("Also write the frames as captured (raw depth and color planes, intrinsics, distortion, poses) as a capture bundle that bundle: reads.", valueName: "dir"))
    var bundle: String?

    @OptionGroup(title: "Pictures") var pictures: PreviewOptions

    @Flag(help: "Print one JSON object describing the capture on stdout, nothing else.")
    var json = false

    func run() throws {
        let pipeline = try filters.pipeline(arguments: Array(CommandLine.arguments.dropFirst()))
        output.warnAboutEncoding()
        let frameLimit = (frames ?? (fuse || duration != nil ? .all : .count(1))).limit
        let files = output.requested.map(\.path) + [pictures.preview, pictures.depthImage].compactMap { $0 }
        if frameLimit != 1 && !fuse, let device = files.first(where: AtomicFile.isWrittenInPlace) {
            throw CloudError.badInput("\(device): a sequence writes numbered files (NAME_000 ...) beside each output, which a device or pipe cannot hold; add --fuse or --frames 1")
        }
        try Console.claimStdout(for: files, json: json)
        CaptureInterrupt.install()
        // Every file and folder of the capture lands together once it has succeeded, or none does.
        let (report, filterReports, lost) = try OutputSet.all(subject: (files + [rgbd, bundle].compactMap { $0 }).joined(separator: ", ")) {
            try CapturePipeline(
                sourceSpec: source,
                sourceOptions: SourceOptions(intrinsicsPath: intrinsics, depthUnitsPerMetre: depthScale, depthEncoding: depthEncoding),
                frame: frame, range: range?.limits,
                frameLimit: frameLimit, duration: duration, fuse: fuse, outputs: output.requested,
                rgbdDirectory: rgbd, bundleDirectory: bundle, filters: pipeline, pictures: try pictures.outputs(),
                observer: Progress(quiet: frameLimit == 1)
            ).run()
        }
        // The frames before a camera went away are written; the capture still failed.
        if let lost { throw lost }
        if json {
            try Console.printJSON(FilteredCaptureReport(report: report, filters: filterReports))
        } else {
            // The filters after the capture line, before the files they shaped.
            var lines = report.summary.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            lines.insert(contentsOf: filterReports.map { "  " + $0.summary }, at: 1)
            Console.report(lines.joined(separator: "\n"))
        }
    }
}
