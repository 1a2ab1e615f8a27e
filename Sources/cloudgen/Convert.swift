import ArgumentParser
import CloudCore
import CloudFiles
import CloudPCL
import CloudPipeline
import SafeIO

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read a PLY or PCD cloud and write it as PLY and/or PCD.",
        discussion: """
            Positions, colors, normals with their curvature, the viewpoint and the organized grid carry over; other fields (intensity, alpha, ...) and a PLY's other elements (a mesh's faces) do not, and a warning names them.
            Filter flags run in the order given; a filtered cloud is written unorganized unless --organized is given.
            """)

    @Argument(help: ArgumentHelp("The cloud to read (.ply or .pcd; the format is read from the file's header).", valueName: "in"))
    var input: String

    @OptionGroup var output: CloudOutputOptions

    @Option(
        name: .customLong("range"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "Keep the points with MIN <= z <= MAX (metres; MIN may be -inf, MAX inf; PCL PassThrough on z).", valueName: "min,max"))
    var range: [String] = []

    @OptionGroup(title: "Filters, run in the order given") var filters: FilterOptions

    func validate() throws {
        if output.requested.isEmpty {
            throw ValidationError("give --ply FILE and/or --pcd FILE to say what to write")
        }
    }

    func run() throws {
        try Console.claimStdout(for: output.requested.map(\.path), json: false)
        let pipeline = try filters.pipeline(arguments: Array(CommandLine.arguments.dropFirst()), extra: ["--range": range])
        let loaded = try CloudReader.read(input)
        output.warnAboutEncoding()
        // Nothing is dropped silently: fields no channel holds, and a mesh's faces.
        if !loaded.ignoredFields.isEmpty {
            Console.warning(
                CloudWarning(
                    .file(input),
                    "fields \(loaded.ignoredFields.joined(separator: " ")) are not carried over (cloudgen keeps positions, colors, normals and curvature)"
                ))
        }
        for element in loaded.header.otherElements where element.name != "camera" {
            Console.warning(
                CloudWarning(.file(input), "element \(element.name) (\(element.count)) is not carried over (cloudgen writes points only)"))
        }
        if pipeline.organized && loaded.cloud.organized == nil {
            Console.warning(
                CloudWarning(.file(input), "\(switch: "organized") has no grid to keep: the file is not organized (its height is 1)"))
        }
        var warnings: [CloudWarning] = []
        let (cloud, reports) = try pipeline.run(loaded, warnings: &warnings)
        warnings.forEach(Console.warning)
        if let empty = reports.first(where: { $0.pointsOut == 0 }) {
            throw CloudError.badInput("\(input): no points to write: \(empty.argument) kept none of its \(empty.pointsIn) points")
        }
        // --ply and --pcd land together or not at all; the report follows once they have.
        let written = try OutputSet.all(subject: output.requested.map(\.path).joined(separator: ", ")) {
            try output.requested.map {
                try CloudWriter.write(
                    cloud, to: $0.path, format: $0.format, viewpoint: loaded.header.viewpoint,
                    relativeUnits: loaded.header.relativeUnits)
            }
        }
        reports.forEach { Console.report($0.summary) }
        for ((path, format), count) in zip(output.requested, written) {
            Console.report("wrote \(path) (\(format), \(count) points)")
        }
    }
}
