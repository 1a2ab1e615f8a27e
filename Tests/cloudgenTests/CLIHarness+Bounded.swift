import Foundation
import XCTest

extension CLI {
    /// Runs cloudgen with extra environment variables, killed after `timeout` seconds: device
    /// playback that waits for frames which never come must fail the test, not hang the suite.
    /// `whileRunning` runs beside the process (to interrupt it, say) and must return before it ends.
    static func run(
        _ arguments: [String], in directory: URL? = nil, environment: [String: String], timeout: Double,
        whileRunning: ((Process) -> Void)? = nil
    ) throws -> (result: Result, timedOut: Bool) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        return try run(process, timeout: timeout, whileRunning: whileRunning)
    }

    /// Runs `process` (set up but not started), killing it after `timeout` seconds.
    static func run(_ process: Process, timeout: Double, whileRunning: ((Process) -> Void)? = nil) throws -> (
        result: Result, timedOut: Bool
    ) {
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        // Both pipes drain on their own threads, so that neither can fill up and block the child.
        final class Output: @unchecked Sendable { var data = Data() }
        let stdout = Output()
        let stderr = Output()
        let readers = DispatchGroup()
        DispatchQueue.global().async(group: readers) { stdout.data = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: readers) { stderr.data = err.fileHandleForReading.readDataToEndOfFile() }
        try process.run()
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            process.waitUntilExit()
            finished.signal()
        }
        whileRunning?(process)
        var timedOut = false
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            finished.wait()
        }
        readers.wait()
        return (
            Result(
                status: process.terminationStatus, stdout: String(decoding: stdout.data, as: UTF8.self),
                stderr: String(decoding: stderr.data, as: UTF8.self)), timedOut
        )
    }
}
