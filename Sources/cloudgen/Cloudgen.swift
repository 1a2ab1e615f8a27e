import ArgumentParser
import CloudCore
import CloudPCL
import Foundation
import SafeIO

@main
struct Cloudgen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cloudgen",
        abstract: "Turn captured depth and color into colored point clouds.",
        discussion: """
            Exit status: 0 success, 2 bad usage or bad input, 3 device or I/O failure.
            Units are metres; camera frame x right, y down, z forward (OpenCV, PCL, Open3D).
            """,
        version: "0.1.0",
        subcommands: [Capture.self, Convert.self, Info.self, Render.self, Measure.self, Devices.self, Serve.self, StreamCommand.self]
    )

    /// Parses and runs a command (`serve` and `stream` are async: a server, a socket's client),
    /// mapping every failure onto the exit statuses of Docs/cli.md with one line on stderr.
    /// ArgumentParser's own usage errors would exit 64; the contract says 2.
    static func main() async {
        // First, so that a signal or a full disk during any write leaves no half-written output.
        // Not for the service: SIGTERM and SIGINT must reach its graceful shutdown, and its
        // half-written captures are in staging folders that start-up empties.
        if CommandLine.arguments.dropFirst().first != "serve" { AtomicFile.installSignalCleanup() }
        do {
            // ArgumentParser has no options with an optional value: `--normals` alone is spelled
            // out with its default first.
            var arguments = FilterFlags.withOptionalValues(Array(CommandLine.arguments.dropFirst()))
            if arguments.first == "serve" {
                for name in OptionSources.unknownVariables(in: ProcessInfo.processInfo.environment, for: Serve.self) {
                    // At once: a server's warnings cannot wait for it to end.
                    FileHandle.standardError.write(
                        Data(
                            "cloudgen: warning: \(name) sets no option of 'cloudgen serve' (misspelt?), ignored; see 'cloudgen serve --help'\n"
                                .utf8))
                }
                arguments =
                    try ["serve"]
                    + OptionSources.merged(Array(arguments.dropFirst()), for: Serve.self, environment: ProcessInfo.processInfo.environment)
            }
            var command = try parseAsRoot(arguments)
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let error as CloudError {
            Console.fail(error.message, status: error.exitStatus)
        } catch {
            if exitCode(for: error) == .success {
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            Console.fail("\(Console.usageProblem(message(for: error))) (see 'cloudgen help')", status: 2)
        }
        Console.flushWarnings()
    }
}

/// Where the CLI talks to people: stdout carries results (and only the JSON object with --json),
/// stderr carries errors, warnings and summaries. A failing command says exactly one line.
enum Console {
    /// Warnings wait until the command has succeeded: a run that then fails prints its error
    /// alone, since the warning was about a result that no longer exists (`tum:DIR --fuse`
    /// warned about the source, then failed for want of poses).
    nonisolated(unsafe) private static var pending: [String] = []
    /// Set when an output is this process's stdout (`--ply /dev/stdout`): reports go to stderr,
    /// so that stdout carries the cloud alone.
    nonisolated(unsafe) static var stdoutIsOutput = false

    /// The one error line, escaped and shortened to fit (MessageText), then exit.
    static func fail(_ message: String, status: Int32) -> Never {
        // A progress bar may be drawn on the terminal's last line.
        let clear = isatty(STDERR_FILENO) == 1 ? "\r\u{1B}[K" : ""
        FileHandle.standardError.write(Data("\(clear)cloudgen: \(MessageText.fitted(message))\n".utf8))
        Foundation.exit(status)
    }

    /// "warning: SUBJECT: reason", with the flags and paths the user typed.
    static func warning(_ warning: CloudWarning) {
        self.warning(warning.message)
    }

    static func warning(_ message: String) {
        note("warning: " + message)
    }

    /// A line for stderr that waits, as warnings do (a capture's closing "captured N frames").
    static func note(_ message: String) {
        let line = "cloudgen: " + MessageText.fitted(message, limit: MessageText.lineLimit - "cloudgen: ".count)
        if !pending.contains(line) { pending.append(line) }
    }

    /// Prints the warnings and notes held so far; called once the command has succeeded.
    static func flushWarnings() {
        guard !pending.isEmpty else { return }
        FileHandle.standardError.write(Data((pending.joined(separator: "\n") + "\n").utf8))
        pending = []
    }

    /// A human-readable result line: stdout, unless an output is stdout itself.
    static func report(_ text: String) {
        if stdoutIsOutput {
            FileHandle.standardError.write(Data((text + "\n").utf8))
        } else {
            print(text)
        }
    }

    /// Notes which outputs are stdout; with --json both would want it, which cannot be.
    static func claimStdout(for paths: [String], json: Bool) throws {
        guard let path = paths.first(where: AtomicFile.isStandardOutput) else { return }
        if json {
            throw CloudError.badInput(
                "\(path): is standard output, where --json prints its report; write the file elsewhere or drop --json")
        }
        stdoutIsOutput = true
    }

    /// ArgumentParser's usage message ("Error: ...", then help and usage lines) as its one line.
    static func usageProblem(_ message: String) -> String {
        let first = message.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? message
        return first.hasPrefix("Error: ") ? String(first.dropFirst("Error: ".count)) : first
    }

    static func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        FileHandle.standardOutput.write(try encoder.encode(value) + Data("\n".utf8))
    }
}
