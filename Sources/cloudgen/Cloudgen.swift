import ArgumentParser
import CloudCore
import CloudPCL
import Foundation

@main
struct Cloudgen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cloudgen",
        abstract: "Turn captured depth and color into colored point clouds.",
        discussion: """
            Exit status: 0 success, 2 bad usage or bad input, 3 device or I/O failure.
            Units are metres; camera frame x right, y down, z forward (OpenCV, PCL, Open3D).
            """,
        version: "0.1.0",
        subcommands: [Capture.self, Convert.self, Info.self, Render.self, Devices.self]
    )

    /// Parses and runs a command, mapping every failure onto DESIGN.md's exit statuses with one
    /// line on stderr. ArgumentParser's own usage errors would exit 64; the contract says 2.
    static func main() {
        do {
            // ArgumentParser has no options with an optional value: `--normals` alone is spelled
            // out with its default first.
            var command = try parseAsRoot(FilterArguments.withOptionalValues(Array(CommandLine.arguments.dropFirst())))
            try command.run()
        } catch let error as CloudError {
            Console.error(error.message)
            Foundation.exit(error.exitStatus)
        } catch {
            if exitCode(for: error) == .success {
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            Console.error("\(message(for: error)) (see 'cloudgen help')")
            Foundation.exit(2)
        }
    }
}

/// Where the CLI talks to people: stdout carries results (and only the JSON object with --json),
/// stderr carries errors, warnings and summaries.
enum Console {
    static func error(_ message: String) {
        FileHandle.standardError.write(Data("cloudgen: \(message)\n".utf8))
    }

    static func warning(_ message: String) {
        FileHandle.standardError.write(Data("cloudgen: warning: \(message)\n".utf8))
    }

    static func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        FileHandle.standardOutput.write(try encoder.encode(value) + Data("\n".utf8))
    }
}
