// cloudgen-bench: times cloudgen beside Open3D on the same inputs (Tools/bench/run, render and
// files drive it and put Open3D's figures beside its JSON). Build with -c release: debug timings
// mean nothing.

import ArgumentParser
import CloudCore
import Foundation

@main
struct CloudgenBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cloudgen-bench",
        abstract: "Times cloudgen's stages and pipelines; prints one JSON object on stdout.",
        subcommands: [FramesBench.self, RenderBench.self, FilesBench.self, DepthCodecBench.self, StreamBench.self],
        defaultSubcommand: FramesBench.self)
}

/// How many times each measurement runs, and how many untimed runs go first.
struct RunCounts: ParsableArguments {
    @Option(help: "Timed runs of each measurement.")
    var runs = 30

    @Option(help: "Untimed runs first (first-touch page faults, lazy binding, allocator growth).")
    var warmup = 3

    func validate() throws {
        try Self.check(runs: runs, warmup: warmup)
    }

    static func check(runs: Int, warmup: Int) throws {
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
        guard warmup >= 0 else { throw ValidationError("--warmup must not be negative") }
    }
}

#if DEBUG
let build = "debug"
#else
let build = "release"
#endif

/// Prints `report` as the benchmark's JSON, or the product's error line with its exit status.
func printReport<T: Encodable>(_ make: () throws -> T) throws {
    if build == "debug" {
        FileHandle.standardError.write(Data("cloudgen-bench: debug build; these timings say nothing about release speed\n".utf8))
    }
    do {
        FileHandle.standardOutput.write(try benchJSON(make()) + Data("\n".utf8))
    } catch let error as CloudError {
        FileHandle.standardError.write(Data("cloudgen-bench: \(error.message)\n".utf8))
        throw ExitCode(error.exitStatus)
    }
}
