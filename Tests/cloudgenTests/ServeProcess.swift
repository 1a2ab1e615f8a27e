import Foundation
import XCTest

/// `cloudgen serve` as a real process on an ephemeral port of 127.0.0.1, and curl as its client:
/// what a user's scripts do, signals and all.
final class ServeProcess {
    let process = Process()
    let url: String
    private let output = Pipe()

    /// Starts the server on `data` and waits for the URL it prints.
    init(data: URL, arguments: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws {
        process.executableURL = CLI.executable
        process.arguments = ["serve", "--port", "0", "--data", data.path, "--workers", "2"] + arguments
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        while !text.contains("\n"), Date() < deadline, process.isRunning {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first, line.hasPrefix("cloudgen serve: listening on http://127.0.0.1:") else {
            process.terminate()
            XCTFail("cloudgen serve printed \(text.debugDescription) instead of its URL", file: file, line: line)
            throw CocoaError(.fileReadCorruptFile)
        }
        url = String(line.split(separator: " ").last!)
    }

    func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Waits for the process to end; nil if it is still running after `seconds`.
    func exitStatus(within seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// Waits until the server says (GET /metrics) that its capture pool is running work: a
    /// request is in flight, not merely sent. False if that is not seen within `seconds` (a bound
    /// against a hang) or the process ends.
    func waitUntilCapturing(within seconds: Double) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline {
            let metrics = String(decoding: try Self.curl(["\(url)/metrics"]).body, as: UTF8.self)
            if metrics.split(separator: "\n").contains(where: {
                $0.hasPrefix("cloudgen_pool_running{pool=\"capture\"} ") && !$0.hasSuffix(" 0")
            }) {
                return true
            }
            usleep(20_000)
        }
        return false
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// curl's status code and body for a request; `arguments` are curl's (`-F part=@file`, `-X DELETE`).
    static func curl(_ arguments: [String]) throws -> (status: Int, body: Data) {
        let curl = Process()
        let body = Pipe()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-s", "--max-time", "120", "-w", "\n%{http_code}"] + arguments
        curl.standardOutput = body
        try curl.run()
        let data = body.fileHandleForReading.readDataToEndOfFile()
        curl.waitUntilExit()
        let split = data.lastIndex(of: UInt8(ascii: "\n")) ?? data.endIndex
        let status = Int(String(decoding: data[split...].dropFirst(), as: UTF8.self)) ?? 0
        return (status, Data(data[..<split]))
    }

    static func json(_ data: Data) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }
}
