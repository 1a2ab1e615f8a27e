import CloudArchives
import CloudCore
import Foundation
import SharedTestData
import XCTest

/// Archives for the extractor's tests, made by real tools (GNU tar, Python's tarfile and
/// zipfile, Info-ZIP's zip) from real captures in ../shared/data, and the checks every test makes.
class ArchiveTestCase: XCTestCase {
    var scratch: URL!
    /// A small Redwood-layout folder, "scan", of real files: what is archived.
    var source: URL!
    /// The fresh folder each extraction goes into.
    var destination: URL!

    /// The files of `scan`, relative to `source`, with the real files they copy.
    static let scanFiles = [
        "scan/camera_primesense.json": "open3d-rgbd/camera_primesense.json",
        "scan/color/00000.jpg": "open3d-rgbd/color/00000.jpg",
        "scan/depth/00000.png": "open3d-rgbd/depth/00000.png",
        "scan/rgbd.match": "open3d-rgbd/rgbd.match"
    ]

    override func setUpWithError() throws {
        scratch = try makeScratchFolder()
        source = scratch.appendingPathComponent("source")
        destination = scratch.appendingPathComponent("out")
        let fm = FileManager.default
        try fm.createDirectory(at: destination, withIntermediateDirectories: true)
        for (relative, real) in Self.scanFiles {
            let target = source.appendingPathComponent(relative)
            try fm.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try fm.copyItem(at: try SharedData.url(real), to: target)
        }
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
    }

    func archive(_ name: String) -> String {
        scratch.appendingPathComponent(name).path
    }

    /// Runs `executable` (looked up on PATH) in `source`; fails the test when it fails.
    func run(_ executable: String, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
        process.currentDirectoryURL = source
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            XCTFail("\(executable) \(arguments.joined(separator: " ")) failed: \(said)", file: file, line: line)
            throw CocoaError(.executableLoad)
        }
    }

    /// Runs a Python script in `source` with `arguments` as sys.argv[1...].
    func python(_ script: String, _ arguments: String..., file: StaticString = #filePath, line: UInt = #line) throws {
        try run("python3", ["-c", script] + arguments, file: file, line: line)
    }

    func extract(_ archive: String, limits: ArchiveLimits = .standard) throws -> ArchiveSummary {
        try ArchiveExtractor.extract(archive: archive, into: destination.path, limits: limits)
    }

    /// Asserts that every file of `scan` came out under `root` with the same bytes, and nothing else.
    func assertExtractedScan(under root: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        var found: [String] = []
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])!
        for case let url as URL in enumerator where try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true {
            found.append(String(url.path.dropFirst(root.path.count + 1)))
        }
        XCTAssertEqual(found.sorted(), Self.scanFiles.keys.sorted(), file: file, line: line)
        for (relative, real) in Self.scanFiles {
            let extracted = try Data(contentsOf: root.appendingPathComponent(relative))
            XCTAssertEqual(extracted, try Data(contentsOf: try SharedData.url(real)), "\(relative) differs", file: file, line: line)
        }
    }

    /// The bytes of all of `scan`'s files.
    var scanBytes: Int {
        Self.scanFiles.values.reduce(0) { total, real in
            total + ((try? FileManager.default.attributesOfItem(atPath: SharedData.path(real))[.size] as? Int) ?? 0)
        }
    }

    /// Asserts that extracting `archive` is refused as bad input naming the archive, saying
    /// `detail` (and naming `member` when given), and that the folder is left empty.
    func assertRefused(
        _ archive: String, member: String? = nil, _ detail: String, limits: ArchiveLimits = .standard,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        assertCloudError(.badInput, naming: archive, containing: detail, file: file, line: line) {
            try extract(archive, limits: limits)
        }
        if let member {
            assertCloudError(.badInput, naming: "member \"\(member)\"", file: file, line: line) {
                try extract(archive, limits: limits)
            }
        }
        let left = (try? FileManager.default.contentsOfDirectory(atPath: destination.path)) ?? ["?"]
        XCTAssertEqual(left, [], "a refused archive left files behind", file: file, line: line)
    }
}
