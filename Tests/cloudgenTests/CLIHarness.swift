import Foundation
import SharedTestData
import XCTest

/// Runs the built `cloudgen` executable, which SwiftPM puts beside the test bundle.
struct CLI {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
    }

    static var executable: URL {
        let bundleDir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return bundleDir.appendingPathComponent("cloudgen")
    }

    static func run(_ arguments: [String], in directory: URL? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            XCTFail("cloudgen executable not found at \(executable.path); build with `swift build --build-tests`", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes before waiting, so a large output cannot block the child.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// A fresh directory per test, removed afterwards.
func makeScratchDirectory() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cloudgen-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

/// ../shared/data beside the package root; a test that needs it fails (never skips) without it.
func sharedData(_ relative: String, file: StaticString = #filePath, line: UInt = #line) -> String {
    SharedData.path(relative, file: file, line: line)
}

func filesIn(_ dir: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted()
}
