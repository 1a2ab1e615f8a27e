import ArgumentParser
import CloudCore
import CloudPCL

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read a PLY or PCD cloud and write it as PLY and/or PCD.",
        discussion: "Positions, colors, normals and the organized grid carry over; other fields (intensity, curvature, alpha) are dropped.")

    @Argument(help: ArgumentHelp("The cloud to read (.ply or .pcd; the format is read from the file's header).", valueName: "in"))
    var input: String

    @OptionGroup var output: CloudOutputOptions

    func validate() throws {
        if output.requested.isEmpty {
            throw ValidationError("give --ply FILE and/or --pcd FILE to say what to write")
        }
    }

    func run() throws {
        let loaded = try CloudReader.read(input)
        for (path, format) in output.requested {
            let written = try CloudWriter.write(loaded.cloud, to: path, format: format)
            print("wrote \(path) (\(format), \(written) points)")
        }
    }
}
