import Foundation
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import XCTest

@testable import CloudService

/// Derived files are named by the SHA-256 of their canonical parameters (held to `sha256sum`),
/// quantised so that fractions cannot make endless variants, and held to a byte budget with the
/// least recently used going first.
final class DerivedFilesTests: XCTestCase {
    func testSHA256AgreesWithSha256sum() throws {
        let texts = [
            "", "abc", String(repeating: "a", count: 55), String(repeating: "b", count: 56), String(repeating: "c", count: 64),
            String(repeating: "0123456789", count: 100), "preview 12.25 -30 640 480", "ünïcødé ☃"
        ]
        for text in texts {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            input.fileHandleForWriting.write(Data(text.utf8))
            try input.fileHandleForWriting.close()
            process.waitUntilExit()
            let expected = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).prefix(64)
            XCTAssertEqual(SHA256.hex(text), String(expected), "\(text.prefix(20))... (\(text.utf8.count) bytes)")
        }
    }

    func testPreviewsStayWithinTheBudgetAndFractionsShareAFile() async throws {
        let harness = try ServiceHarness { $0.derivedCacheBytes = 1 << 20 }
        defer { harness.remove() }
        let upload = try MultipartBody.tumFrame()
        try await harness.test { client in
            let created = try await client.execute(uri: "/v1/captures", method: .post, headers: upload.headers, body: upload.body)
            let id = try XCTUnwrap(try created.json()["id"] as? String)
            let derived = harness.data.appendingPathComponent("captures/\(id)/derived")
            func files() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: derived.path).sorted() }
            func bytes() throws -> Int { try files().reduce(0) { $0 + FileSize.of(derived.appendingPathComponent($1).path) } }

            let first = try await client.execute(uri: "/v1/captures/\(id)/preview.png?azimuth=10.01", method: .get)
            let second = try await client.execute(uri: "/v1/captures/\(id)/preview.png?azimuth=10.02", method: .get)
            XCTAssertEqual(first.status, .ok)
            XCTAssertEqual(first.headers[.eTag], second.headers[.eTag], "10.01 and 10.02 degrees draw the same picture")
            XCTAssertEqual(try files().count, 1)
            let names = try files()
            XCTAssertTrue(names.allSatisfy { $0.range(of: "^[0-9a-f]{64}\\.png$", options: .regularExpression) != nil }, "\(names)")

            for azimuth in stride(from: 20, through: 300, by: 20) {
                let answer = try await client.execute(
                    uri: "/v1/captures/\(id)/preview.png?azimuth=\(azimuth)&width=800&height=600", method: .get)
                XCTAssertEqual(answer.status, .ok)
                XCTAssertLessThanOrEqual(try bytes(), 1 << 20, "over the budget after azimuth \(azimuth)")
            }
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            XCTAssertTrue(metrics.contains("cloudgen_derived_budget_bytes 1048576"), metrics)
            let evictions = metrics.split(separator: "\n").first { $0.hasPrefix("cloudgen_derived_evictions_total ") }
            XCTAssertGreaterThan(Double(evictions?.split(separator: " ").last ?? "0") ?? 0, 0, metrics)
            let held = metrics.split(separator: "\n").first { $0.hasPrefix("cloudgen_derived_bytes ") }.flatMap {
                Double($0.split(separator: " ").last!)
            }
            XCTAssertEqual(held, Double(try bytes()), "the gauge holds what the disk holds")
            // The picture evicted first is drawn again when asked for.
            let again = try await client.execute(uri: "/v1/captures/\(id)/preview.png?azimuth=10", method: .get)
            XCTAssertEqual(again.status, .ok)
        }
    }

    /// Two servers on one data folder (replicas), each asked three times for the same file at the
    /// same moment: it is made once between them (the replica that waited for the other's lock
    /// finds the file made), all six get it, and no lock file is left beside it.
    func testReplicasOnOneFolderMakeAFileOnceBetweenThem() async throws {
        let captures = try scratchFolder()
        let id = CaptureID()
        let folder = captures.appendingPathComponent(id.rawValue)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let replicas = (0..<2).map { _ in
            DerivedFiles(
                pool: WorkerPool(name: "export", threads: 3, queueLimit: 8), metrics: ServiceMetrics(), budget: 1 << 20,
                captures: captures)
        }
        let makes = NIOLockedValueBox(0)
        let paths = try await withThrowingTaskGroup(of: String.self) { group in
            for replica in replicas {
                for _ in 0..<3 {
                    group.addTask {
                        try await replica.file("shared.bin", in: folder, capture: id) { path, _ in
                            makes.withLockedValue { $0 += 1 }
                            Thread.sleep(forTimeInterval: 0.3)
                            try Data("made once".utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
                        }
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(makes.withLockedValue { $0 }, 1)
        XCTAssertEqual(paths.count, 6)
        XCTAssertEqual(Set(paths).count, 1)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: paths[0])), Data("made once".utf8))
        let derived = folder.appendingPathComponent(CaptureFiles.derived).path
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: derived), ["shared.bin"], "no lock file is left")
    }
}
