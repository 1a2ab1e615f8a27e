import ArgumentParser
import CloudCore
import CloudFiles
import CloudPCL

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

    @Option(name: .customLong("range"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp("Keep the points with MIN <= z <= MAX (metres; MIN may be -inf, MAX inf; PCL PassThrough on z).", valueName: "min,max"))
    var range: [String] = []

    @OptionGroup(title: "Filters, run in the order given") var filters: FilterOptions

    func validate() throws {
        if output.requested.isEmpty {
            throw ValidationError("give --ply FILE and/or --pcd FILE to say what to write")
        }
    }

    func run() throws {
        let pipeline = try filters.pipeline(arguments: Array(CommandLine.arguments.dropFirst()), extra: ["--range": range])
        let loaded = try CloudReader.read(input)
        output.warnAboutEncoding()
        // Nothing is dropped silently: fields no channel holds, and a mesh's faces.
        if !loaded.ignoredFields.isEmpty {
            Console.warning("\(input): fields \(loaded.ignoredFields.joined(separator: " ")) are not carried over (cloudgen keeps positions, colors, normals and curvature)")
        }
        for element in loaded.header.otherElements where element.name != "camera" {
            Console.warning("\(input): element \(element.name) (\(element.count)) is not carried over (cloudgen writes points only)")
        }
        if pipeline.organized && loaded.cloud.organized == nil {
            Console.warning("\(input): --organized has no grid to keep: the file is not organized (its height is 1)")
        }
        var warnings: [String] = []
        // The file's viewpoint (a world-frame capture's camera) is what normals face and what
        // --foreground measures depth from; a file without one was seen from the origin.
        let viewpoint = loaded.header.viewpoint.map { Viewpoint(pose: $0) } ?? .camera
        let (cloud, reports) = try pipeline.run(loaded.cloud, viewpoint: viewpoint, warnings: &warnings)
        warnings.forEach(Console.warning)
        reports.forEach { print($0.summary) }
        if let empty = reports.first(where: { $0.pointsOut == 0 }) {
            throw CloudError.badInput("\(input): no points to write: \(empty.argument) kept none of its \(empty.pointsIn) points")
        }
        for (path, format) in output.requested {
            let written = try CloudWriter.write(cloud, to: path, format: format, viewpoint: loaded.header.viewpoint)
            print("wrote \(path) (\(format), \(written) points)")
        }
    }
}
