import ArgumentParser
import CloudCapture
import CloudCore
import CloudPCL
import CloudPipeline
import Foundation
import SafeIO

extension DepthFileEncoding: ExpressibleByArgument {}

struct Capture: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Capture a frame from a source and write it as a colored point cloud.",
        discussion: """
            Sources (Docs/cli.md has every key):
            \(SourceKind.all.map { "  \($0.form)\n      \($0.summary)" }.joined(separator: "\n"))
            Without --source the first attached depth camera is used ('cloudgen devices' lists them).
            Ctrl-C stops a capture early and writes the frames taken so far.
            Nothing is dropped or rescaled silently: --json reports the scaled intrinsics, the depth
            format and how many pixels each stage kept.
            """)

    @OptionGroup var input: SourceArguments

    @OptionGroup var output: CloudOutputOptions

    @OptionGroup(title: "Registration") var registration: RegistrationOptions

    @OptionGroup(title: "Filters, run in the order given") var filters: FilterOptions

    @Option(
        help: ArgumentHelp(
            "Also write each frame as an RGBD image folder (color/ and 16-bit millimetre depth/ PNGs, camera_intrinsic.json, trajectory.log) that Open3D and redwood: read.",
            valueName: "dir"))
    var rgbd: String?

    @Option(
        help: ArgumentHelp(
            "Also write the frames as captured (raw depth and color planes, intrinsics, distortion, poses) as a capture bundle that bundle: reads.",
            valueName: "dir"))
    var bundle: String?

    @OptionGroup(title: "Pictures") var pictures: PreviewOptions

    @Flag(help: "Print one JSON object describing the capture on stdout, nothing else.")
    var json = false

    func run() throws {
        let pipeline = try filters.pipeline(arguments: Array(CommandLine.arguments.dropFirst()))
        try output.checkEncoding()
        let frameLimit = input.frameLimit
        let files = output.requested.map(\.path) + [pictures.preview, pictures.depthImage, registration.trajectory].compactMap { $0 }
        if frameLimit != 1 && !input.fuse, let device = files.first(where: AtomicFile.isWrittenInPlace) {
            throw CloudError.badInput(
                "\(device): a sequence writes numbered files (NAME_000 ...) beside each output, which a device or pipe cannot hold; add --fuse or --frames 1"
            )
        }
        try Console.claimStdout(for: files, json: json)
        CaptureInterrupt.install()
        // Every file and folder of the capture lands together once it has succeeded, or none does.
        let (report, filterReports, lost) = try OutputSet.all(subject: (files + [rgbd, bundle].compactMap { $0 }).joined(separator: ", ")) {
            var capture = CapturePipeline(
                source: try input.sourceSpec(), sourceOptions: input.sourceOptions, frame: input.frame, range: input.range?.limits,
                frameLimit: frameLimit, duration: input.duration, fuse: input.fuse, outputs: output.requested,
                rgbdDirectory: rgbd, bundleDirectory: bundle, filters: pipeline, pictures: try pictures.outputs(),
                observer: Progress(quiet: frameLimit == 1))
            (capture.register, capture.trajectoryPath) = (registration.register, registration.trajectory)
            return try capture.run()
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
