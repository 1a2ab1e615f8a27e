import ArgumentParser
import CloudCapture
import CloudCore
import CloudImages
import CloudPCL
import CloudPipeline
import CloudService
import CloudStream
import CloudStreamClient
import Foundation

extension DepthFrameCodec: ExpressibleByArgument {}

struct StreamCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stream",
        abstract: "Push a source's frames to a running 'cloudgen serve' as a live stream that browsers watch.",
        discussion: """
            Creates the stream (POST /v1/streams), prints the viewer page's URL on stdout, then pushes \
            each frame over the stream's WebSocket until the source ends, --frames or --duration is \
            reached, or Ctrl-C. The service turns every frame into a cloud with the capture options \
            given (--frame, --range, the filters). http:// only. Docs/cli.md has the details.
            """)

    @Option(help: ArgumentHelp("The service's address, e.g. http://127.0.0.1:8080.", valueName: "url"))
    var to: String

    @Option(help: ArgumentHelp("File whose first line is the service's bearer token.", valueName: "file"))
    var tokenFile: String?

    @OptionGroup var input: SourceArguments

    @OptionGroup(title: "Filters the service runs on every frame, in the order given") var filters: FilterOptions

    @Option(
        help: ArgumentHelp(
            "Frames a second to push at; 0 pushes as fast as the service takes them (default: as a camera delivers them, a recording at its own timestamps).",
            valueName: "n"))
    var fps: Double?

    @Option(help: "How depth travels: zstd (smallest and fastest), rvl or png (16-bit, lossless all three).")
    var depthCodec: DepthFrameCodec = .zstd

    func run() async throws {
        let service = try ServiceURL(to)
        let token = try tokenFile.map(ServiceConfiguration.readToken)
        if input.fuse {
            throw CloudError.badInput("\(switch: "fuse") merges frames into one cloud; a stream shows each frame as it comes: drop it")
        }
        if let fps, !(fps.isFinite && fps >= 0) {
            throw CloudError.badInput("\(option: "fps", String(fps)) must be a number of frames a second, 0 or more")
        }
        if let duration = input.duration, !(duration.isFinite && duration > 0) {
            throw CloudError.badInput("\(option: "duration", String(duration)) must be a positive number of seconds")
        }
        let request = try captureOptions()
        let source = try (input.sourceSpec() ?? USBDiscovery.defaultSourceSpec()).open(options: input.sourceOptions)
        if input.frame == .world && !source.knowsPose {
            throw CloudError.badInput(
                .source(source.name), "\(option: "frame", "world") needs the camera's pose, and this source has no poses")
        }
        source.warnings.forEach(Console.warning)
        CaptureInterrupt.install()
        let push = StreamPush(
            source: source, service: service, token: token, options: request, codec: depthCodec,
            pace: fps.map { $0 == 0 ? .fastest : .fixed($0) } ?? (source.knownFrameCount == nil ? .fastest : .timestamps),
            frameLimit: input.frames?.limit, duration: input.duration)
        let pushed = try await push.run()
        Console.note("pushed \(pushed) frame\(pushed == 1 ? "" : "s") of \(source.name)")
    }

    /// The capture options of POST /v1/streams, as POST /v1/captures' JSON spells them.
    private func captureOptions() throws -> [String: StreamRequest.Value] {
        var options: [String: StreamRequest.Value] = [:]
        if input.frame != .camera { options["frame"] = .string(input.frame.rawValue) }
        if let range = input.range?.limits { options["range"] = .string("\(range.lowerBound),\(range.upperBound)") }
        let pipeline = try filters.pipeline(arguments: Array(CommandLine.arguments.dropFirst()))
        if !pipeline.steps.isEmpty {
            options["filters"] = .strings(
                pipeline.steps.map { step in step.option.value.map { "\(step.option.name)=\($0)" } ?? step.option.name })
        }
        if pipeline.organized { options["organized"] = .bool(true) }
        return options
    }
}
