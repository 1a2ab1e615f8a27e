import CloudCore
import Foundation
import XCTest

/// `../shared/data` next to the package root; fails the test when it is missing.
public func sharedDataDirectory(file: StaticString = #filePath, line: UInt = #line) throws -> URL {
    try SharedData.url(file: file, line: line)
}

/// A fresh folder for one test, removed by `removeScratchFolder`.
public func makeScratchFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("cloudgen-tests-\(getpid())-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// Tests draw from CloudCore's deterministic generator, so failures reproduce.
extension SplitMix64 {
    /// A float in [-range, range) using all 24 bits of the significand, never subnormal.
    public mutating func float(_ range: Float) -> Float {
        Float(Int64(bitPattern: next()) >> 40) / Float(1 << 23) * range
    }
}

/// A cloud with every float bit in use, optional channels, and NaN pixels when organized.
public func syntheticCloud(colors: Bool, normals: Bool, organized: Bool, curvature withCurvature: Bool = false, seed: UInt64 = 7)
    -> PointCloud
{
    var random = SplitMix64(seed: seed)
    let grid = organized ? PointCloud.Grid(width: 7, height: 5) : nil
    let count = grid.map { $0.width * $0.height } ?? 50
    var positions = [Float]()
    var rgb = [UInt8]()
    var normal = [Float]()
    var curvature = [Float]()
    for i in 0..<count {
        // Every fourth pixel of an organized cloud has no point, as PCL marks it.
        if organized && i % 4 == 1 {
            positions += [.nan, .nan, .nan]
            rgb += [0, 0, 0]
            normal += [.nan, .nan, .nan]
            curvature.append(.nan)
            continue
        }
        positions += [random.float(3), random.float(2), abs(random.float(8)) + 0.3]
        rgb += [
            UInt8(truncatingIfNeeded: random.next()), UInt8(truncatingIfNeeded: random.next()), UInt8(truncatingIfNeeded: random.next())
        ]
        let n = SIMD3(random.float(1), random.float(1), random.float(1) + 2)
        let unit = n / (n * n).sum().squareRoot()
        normal += [unit.x, unit.y, unit.z]
        // Surface variation lies in [0, 1/3]; spread over it without drawing from the generator.
        curvature.append(Float(i % 17) / 51)
    }
    // Floats that 8 significant digits cannot tell from their neighbours (about 1 in 500 is such).
    positions[6] = -0.100984104
    positions[7] = 0.114799425
    // Values whose printing is easy to get wrong: a negative zero, extremes of the range.
    if !organized {
        positions[0] = -0.0
        positions[3] = 1234.5677
        positions[4] = -0.000123456789
        rgb[0...5] = [0, 0, 0, 255, 255, 255]
    }
    return PointCloud(
        positions: positions, colors: colors ? rgb : nil, normals: normals ? normal : nil,
        curvature: normals && withCurvature ? curvature : nil, organized: grid)
}

/// Whether two floats are the same bits (any NaN matches any NaN).
public func sameFloat(_ a: Float, _ b: Float) -> Bool {
    (a.isNaN && b.isNaN) || a.bitPattern == b.bitPattern
}

/// Asserts that `body` throws a CloudError of `kind` whose message names `name`.
public func assertCloudError<T>(
    _ kind: CloudError.Kind, naming name: String, containing detail: String? = nil,
    file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> T
) {
    do {
        _ = try body()
        XCTFail("expected a \(kind) error naming \(name), got success", file: file, line: line)
    } catch let error as CloudError {
        XCTAssertEqual(error.kind, kind, "wrong kind for: \(error.message)", file: file, line: line)
        XCTAssertTrue(error.message.contains(name), "message does not name \(name): \(error.message)", file: file, line: line)
        XCTAssertFalse(error.message.contains("\n"), "message is not one line: \(error.message)", file: file, line: line)
        if let detail {
            XCTAssertTrue(error.message.contains(detail), "message does not say '\(detail)': \(error.message)", file: file, line: line)
        }
    } catch {
        XCTFail("expected a CloudError, got \(error)", file: file, line: line)
    }
}

/// Runs one of PCL's command-line programs (Debian's pcl-tools, which Tools/bootstrap installs) in
/// `directory`, its chatter discarded, and records a failure when it is missing or fails.
public func runPCLTool(
    _ name: String, _ arguments: [String], in directory: URL? = nil,
    file: StaticString = #filePath, line: UInt = #line
) throws {
    let executable = "/usr/bin/\(name)"
    guard FileManager.default.isExecutableFile(atPath: executable) else {
        XCTFail(
            "\(executable) is missing: install Debian's pcl-tools (Tools/bootstrap does) to compare against PCL", file: file, line: line)
        throw CocoaError(.fileNoSuchFile)
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0, "\(name) \(arguments.joined(separator: " ")) failed", file: file, line: line)
}
