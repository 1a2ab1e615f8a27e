import ArgumentParser
import CloudCapture
import CloudCore
import CloudFiles
import CloudMeasure
import CloudPCL
import CloudPipeline
import SafeIO

extension UpChoice: ExpressibleByArgument {}

struct Measure: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure a room: height, floor area, perimeter and walls, each with its uncertainty.",
        discussion: """
            The input is a PLY/PCD cloud, or a capture measured in memory without an intermediate file (--source and the capture flags, e.g. --source redwood:DIR --fuse). Planes are fitted with PCL (RANSAC, then least squares); every number carries a 1-sigma uncertainty from a block bootstrap over the planes' points. What was not seen is missing with its reason, never guessed. Docs/measure.md describes the method and the --json schema (cloudgen.measure/1).
            """)

    @Argument(help: ArgumentHelp("The cloud to measure (.ply or .pcd); or give --source.", valueName: "file"))
    var file: String?

    @OptionGroup(title: "Capture (instead of a file)") var input: SourceArguments

    @OptionGroup(title: "Registration (with --source)") var registration: RegistrationOptions

    @Option(
        help: ArgumentHelp(
            "Which way is up in the cloud's frame: auto (the source's gravity when it knows it, else the room's level planes), or an axis: x, y, z, -x, -y, -z (write --up=-y).",
            valueName: "dir"))
    var up: UpChoice = .auto

    @Option(help: ArgumentHelp("Voxel leaf the planes are fitted on, metres.", valueName: "m"))
    var leaf: Double = MeasureSettings().leaf

    @Option(
        help: ArgumentHelp(
            "Also draw a top-down floor plan: floor, walls with their lengths, a scale bar, the cameras.", valueName: "file.png"))
    var plan: String?

    @Flag(help: "Print the report as one JSON object on stdout (schema cloudgen.measure/1), nothing else.")
    var json = false

    func validate() throws {
        if file != nil && input.source != nil { throw ValidationError("give a file or --source, not both") }
        if file == nil && input.source == nil { throw ValidationError("give a cloud file to measure, or --source SPEC to capture one") }
        if file != nil && (registration.register || registration.trajectory != nil) {
            throw ValidationError("--register and --trajectory register a capture's frames: give --source, not a file")
        }
    }

    func run() throws {
        var settings = MeasureSettings()
        settings.leaf = leaf
        settings.up = up.vector
        try settings.check()
        try Console.claimStdout(for: [plan].compactMap { $0 }, json: true)
        if let plan { try AtomicFile.checkWritable(plan) }
        let scan = try file.map { try RoomScan.reading($0) } ?? capture()
        let measurement = try RoomMeasurer.measure(scan, settings: settings)
        if let plan { try FloorPlanPicture.write(measurement, to: plan) }
        if json {
            try Console.printJSON(measurement.report)
        } else {
            Console.report(measurement.report.table)
        }
        measurement.report.warnings.forEach(Console.warning)
    }

    /// Captures from --source into memory: one frame, or a fused sequence.
    private func capture() throws -> RoomScan {
        let frameLimit = input.frameLimit
        if frameLimit != 1 && !input.fuse {
            throw CloudError.badInput("measure takes one cloud: add --fuse to merge the frames, or --frames 1")
        }
        CaptureInterrupt.install()
        let collector = CloudCollector()
        var pipeline = CapturePipeline(
            source: try input.sourceSpec(), sourceOptions: input.sourceOptions, frame: input.frame,
            range: input.range?.limits, frameLimit: frameLimit, duration: input.duration, fuse: input.fuse,
            outputs: [], filters: FilterPipeline(steps: [], organized: false), observer: Progress(quiet: frameLimit == 1))
        pipeline.collector = collector
        (pipeline.register, pipeline.trajectoryPath) = (registration.register, registration.trajectory)
        let (report, _, lost) = try pipeline.run()
        if let lost { throw lost }
        guard let scan = RoomScan.collected(collector, name: report.source) else {
            throw CloudError.io("\(report.source): the capture gave no cloud")
        }
        return scan
    }
}
