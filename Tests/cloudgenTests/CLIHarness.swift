import Foundation
import SharedTestData
import XCTest

/// Runs the built `cloudgen` executable, which SwiftPM puts beside the test bundle. Every run is
/// bounded in time: a hang fails its test instead of stalling the suite.
struct CLI {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
    }

    /// How long a plain `run` may take; the slowest command the tests run (a fused sequence in a
    /// debug build) takes a few seconds.
    static let defaultTimeout: Double = 120

    static var executable: URL {
        let bundleDir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return bundleDir.appendingPathComponent("cloudgen")
    }

    static func run(_ arguments: [String], in directory: URL? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            XCTFail("cloudgen executable not found at \(executable.path); build with `swift build --build-tests`", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        let (result, timedOut) = try run(arguments, in: directory, environment: [:], timeout: defaultTimeout)
        XCTAssertFalse(
            timedOut, "cloudgen \(arguments.joined(separator: " ")) still ran after \(defaultTimeout) s and was killed",
            file: file, line: line)
        return result
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
