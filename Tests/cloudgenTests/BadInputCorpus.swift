import Foundation
import XCTest

/// One bad input (a file, a flag, a failing disk) and the whole contract cloudgen owes it
/// (Docs/reliability.md): exit 2 for bad input or 3 for I/O, exactly one `cloudgen: ` line on
/// stderr of at most 300 characters that names the file or flag, nothing left behind in the
/// folder, a pre-existing output byte-identical, all within a time and an address-space bound.
///
/// The corpus is split by what is bad (`BadInputCorpus+*.swift`), one table per file and one
/// test per table; `BadInputCorpusTests.testCorpusCoversEveryClass` holds the total to the
/// count Docs/reliability.md states.
struct BadInput: Sendable {
    enum Expect: Int32, Sendable {
        case badInput = 2
        case io = 3
    }

    /// What the case is, as the failure message shows it.
    var name: String
    /// Files written into the case's fresh folder before the run (relative path -> bytes).
    var files: [String: [UInt8]] = [:]
    /// cloudgen's arguments; `{dir}` stands for the case's folder.
    var arguments: [String]
    var expect: Expect
    /// Text the error line must contain (`{dir}` stands for the folder): the file or the flag.
    var names: String
    /// Outputs that exist before the run (relative path -> bytes) and must be byte-identical after.
    var existing: [String: [UInt8]] = [:]
    /// Shell commands run before cloudgen in the same `sh` (limits such as `ulimit -f 64`).
    var shell: String = ""
    /// Runs cloudgen as the unprivileged user `nobody` (setpriv), for permission cases: as root
    /// every file is readable.
    var unprivileged = false
    /// Extra environment variables.
    var environment: [String: String] = [:]
    /// Seconds before the run counts as a hang.
    var timeout: Double = 30
    /// Set up beyond plain files (a FIFO, a read-only folder, a mounted tmpfs), given the folder.
    var prepare: (@Sendable (URL) throws -> Void)?
    /// Undone after the run (unmount), given the folder.
    var cleanup: (@Sendable (URL) -> Void)?
}

enum BadInputCorpus {
    /// Every run gets at most this much address space (`ulimit -v`, KiB): a reader that trusts a
    /// header into a huge allocation fails the case instead of the machine.
    static let addressSpaceKiB = 4 << 20

    /// Runs every case and asserts the whole contract; failures name the case.
    static func check(_ cases: [BadInput], file: StaticString = #filePath, line: UInt = #line) throws {
        for badInput in cases {
            try check(badInput, file: file, line: line)
        }
    }

    static func check(_ c: BadInput, file: StaticString = #filePath, line: UInt = #line) throws {
        let dir = try makeScratchDirectory()
        defer {
            c.cleanup?(dir)
            try? FileManager.default.removeItem(at: dir)
        }
        func substitute(_ text: String) -> String { text.replacingOccurrences(of: "{dir}", with: dir.path) }
        for (relative, bytes) in c.files.merging(c.existing, uniquingKeysWith: { a, _ in a }) {
            let url = dir.appendingPathComponent(relative)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }
        try c.prepare?(dir)
        if c.unprivileged {
            // nobody must be able to enter the folder and run the binary; what it may not do is the case.
            chmod(dir.path, 0o777)
        }
        let before = Set(allFiles(dir))

        var script = "ulimit -v \(addressSpaceKiB); "
        if !c.shell.isEmpty { script += substitute(c.shell) + "; " }
        script += "exec \"$0\" \"$@\""
        var command = ["/bin/sh", "-c", script, CLI.executable.path] + c.arguments.map(substitute)
        if c.unprivileged {
            command = ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] + command
        }
        let (result, timedOut) = try CLI.runCommand(command, in: dir, environment: c.environment, timeout: c.timeout)
        let label = "\(c.name) [cloudgen \(c.arguments.map(substitute).joined(separator: " "))]"

        XCTAssertFalse(timedOut, "\(label): still running after \(c.timeout) s", file: file, line: line)
        XCTAssertEqual(result.status, c.expect.rawValue, "\(label): exit status; stderr: \(result.stderr)", file: file, line: line)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast(result.stderr.hasSuffix("\n") ? 1 : 0)
        XCTAssertEqual(
            lines.count, 1, "\(label): stderr must be exactly one line: \(result.stderr.debugDescription)", file: file, line: line)
        if let first = lines.first {
            XCTAssertTrue(
                first.hasPrefix("cloudgen: "), "\(label): the line must start with 'cloudgen: ': \(first)", file: file, line: line)
            XCTAssertLessThanOrEqual(first.count, 300, "\(label): the line is longer than 300 characters", file: file, line: line)
            let wanted = substitute(c.names)
            XCTAssertTrue(first.contains(wanted), "\(label): the line must name '\(wanted)': \(first)", file: file, line: line)
        }
        XCTAssertEqual(result.stdout, "", "\(label): nothing on stdout when failing", file: file, line: line)

        let after = Set(allFiles(dir))
        XCTAssertEqual(after.subtracting(before).sorted(), [], "\(label): left behind", file: file, line: line)
        for (relative, bytes) in c.existing {
            let now = FileManager.default.contents(atPath: dir.appendingPathComponent(relative).path).map { [UInt8]($0) }
            XCTAssertTrue(now == bytes, "\(label): the existing \(relative) changed", file: file, line: line)
        }
    }

    /// Every path under `dir`, hidden files included, relative to it.
    private static func allFiles(_ dir: URL) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: dir.path) else { return [] }
        return walker.compactMap { $0 as? String }
    }
}

extension CLI {
    /// Runs any command (not only cloudgen), killed after `timeout` seconds.
    static func runCommand(
        _ command: [String], in directory: URL, environment: [String: String],
        timeout: Double
    ) throws -> (result: Result, timedOut: Bool) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        return try run(process, timeout: timeout)
    }
}
