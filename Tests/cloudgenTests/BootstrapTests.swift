import Foundation
import XCTest

/// Tools/bootstrap in a copied checkout: the copy's CShims/build still holds a CMake cache
/// configured for the original's source folder, which cmake refuses to configure over.
final class BootstrapTests: XCTestCase {
    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tools/bootstrap")

    /// A checkout reduced to what bootstrap touches, with a one-file CShims so that cmake is quick.
    private func makeCheckout(_ root: URL) throws {
        let fm = FileManager.default
        for folder in ["Tools", "CShims/src"] {
            try fm.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try fm.copyItem(at: Self.script, to: root.appendingPathComponent("Tools/bootstrap"))
        try """
        cmake_minimum_required(VERSION 3.16)
        project(cloudgen_shim CXX)
        add_library(cloudgen_shim SHARED src/shim.cpp)

        """.write(to: root.appendingPathComponent("CShims/CMakeLists.txt"), atomically: true, encoding: .utf8)
        try "int cloudgen_shim_probe() { return 1; }\n".write(
            to: root.appendingPathComponent("CShims/src/shim.cpp"), atomically: true, encoding: .utf8)
    }

    private func bootstrap(_ root: URL) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [root.appendingPathComponent("Tools/bootstrap").path]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    private func cacheHome(_ root: URL) throws -> String? {
        let cache = try String(contentsOf: root.appendingPathComponent("CShims/build/CMakeCache.txt"), encoding: .utf8)
        let prefix = "CMAKE_HOME_DIRECTORY:INTERNAL="
        return cache.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    func testBootstrapInACopiedCheckoutStartsTheShimBuildAfresh() throws {
        let scratch = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let original = scratch.appendingPathComponent("original")
        try makeCheckout(original)
        let first = try bootstrap(original)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(try cacheHome(original), original.appendingPathComponent("CShims").path)

        let copy = scratch.appendingPathComponent("copy")
        try FileManager.default.copyItem(at: original, to: copy)
        let second = try bootstrap(copy)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stderr.contains("was configured for \(original.appendingPathComponent("CShims").path)"), second.stderr)
        XCTAssertEqual(try cacheHome(copy), copy.appendingPathComponent("CShims").path)
        XCTAssertTrue(FileManager.default.fileExists(atPath: copy.appendingPathComponent("CShims/build/libcloudgen_shim.so").path))

        // Run again in place: the cache is its own, nothing is deleted or said.
        let third = try bootstrap(copy)
        XCTAssertEqual(third.status, 0, third.stderr)
        XCTAssertFalse(third.stderr.contains("was configured for"), third.stderr)
    }
}
