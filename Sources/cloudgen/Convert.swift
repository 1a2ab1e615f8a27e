import ArgumentParser
import CloudCore
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
        try output.checkEncoding()
        var warnings: [CloudWarning] = []
        let conversion = try CloudConversion(input, filters: pipeline, warnings: &warnings)
        warnings.forEach(Console.warning)
        // --ply and --pcd land together or not at all; the report follows once they have.
        let written = try OutputSet.all(subject: output.requested.map(\.path).joined(separator: ", ")) {
            try conversion.write(to: output.requested)
        }
        conversion.reports.forEach { Console.report($0.summary) }
        for ((path, format), count) in zip(output.requested, written) {
            Console.report("wrote \(path) (\(format), \(count) points)")
        }
    }
}
