import Foundation
import XCTest

/// The real captures in `../shared/data` beside the checkout (see its README), for every test
/// target: one place that knows where they are. A test that needs a file fails, never skips, when
/// it is missing, with the failure reported at the test's own line.
public enum SharedData {
    /// `../shared/data` next to the package root, found from this file's path.
    public static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // SharedTestData
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .deletingLastPathComponent()
        .appendingPathComponent("shared/data")

    /// `relative` under the data folder (the folder itself for ""); records a failure when it is
    /// missing and returns the path anyway, for tests whose next step then fails on its own.
    public static func path(_ relative: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        let path = directory.appendingPathComponent(relative).path
        if !FileManager.default.fileExists(atPath: path) {
            XCTFail(missing(path), file: file, line: line)
        }
        return path
    }

    /// `relative` under the data folder; records a failure and throws when it is missing, for
    /// tests that cannot go on without it.
    public static func url(_ relative: String = "", file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        let url = directory.appendingPathComponent(relative)
        guard FileManager.default.fileExists(atPath: url.path) else {
            XCTFail(missing(url.path), file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        return url
    }

    private static func missing(_ path: String) -> String {
        "test data \(path) is missing (the real captures live in ../shared/data beside the checkout)"
    }
}
