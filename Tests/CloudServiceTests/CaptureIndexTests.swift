import CloudCore
import CloudService
import Foundation
import SharedTestData
import XCTest

/// The SQLite index's own: its file, and what it refuses to open. What every index does is in
/// `CaptureIndexContract` (SQLiteIndexContractTests).
final class CaptureIndexTests: XCTestCase {
    private func openIndex(_ folder: URL) throws -> SQLiteCaptureIndex {
        try SQLiteCaptureIndex(path: folder.appendingPathComponent("index.sqlite").path)
    }

    /// SQLite marks a WAL database in its file header (bytes 18 and 19, the write and read format
    /// versions, are 2; 1 in rollback mode), and keeps the log beside it while open.
    func testIndexIsInWALMode() async throws {
        let folder = try scratchFolder()
        let index = try openIndex(folder)
        try await index.insert(StoreFixture.record(bytes: 10))
        let header = try XCTUnwrap(FileManager.default.contents(atPath: index.path)).prefix(20)
        XCTAssertEqual(String(decoding: header.prefix(15), as: UTF8.self), "SQLite format 3")
        XCTAssertEqual(Array(header.suffix(2)), [2, 2])
        XCTAssertTrue(FileManager.default.fileExists(atPath: index.path + "-wal"))
        try index.close()
    }

    func testAFileThatIsNotADatabaseIsRefusedNamingIt() throws {
        let path = try scratchFolder().appendingPathComponent("index.sqlite").path
        _ = FileManager.default.createFile(atPath: path, contents: Data(String(repeating: "not a database\n", count: 300).utf8))
        assertCloudError(.badInput, naming: path, containing: "not an SQLite database") { try SQLiteCaptureIndex(path: path) }
        XCTAssertEqual(FileManager.default.contents(atPath: path)?.count, 15 * 300, "the file is left as it was")
    }

    /// A real index whose table pages were overwritten: its header is intact, so only the check
    /// at opening finds the damage, before any request would.
    func testADamagedDatabaseIsRefusedNamingIt() async throws {
        let folder = try scratchFolder()
        let index = try openIndex(folder)
        for i in 0..<300 { try await index.insert(StoreFixture.record(bytes: i)) }
        try index.close()
        let path = index.path
        var bytes = try XCTUnwrap(FileManager.default.contents(atPath: path))
        guard bytes.count > 8 * 4096 else { return XCTFail("the closed index holds only \(bytes.count) bytes") }
        var random = SplitMix64(seed: 11)
        for i in 4096..<(bytes.count - 4096) where i % 4096 < 512 { bytes[i] = UInt8(truncatingIfNeeded: random.next()) }
        try bytes.write(to: URL(fileURLWithPath: path))
        assertCloudError(.badInput, naming: path) { try SQLiteCaptureIndex(path: path) }
    }

    func testAMissingFolderIsAnIOErrorNamingTheFile() throws {
        let path = try scratchFolder().appendingPathComponent("no/such/index.sqlite").path
        assertCloudError(.deviceOrIO, naming: path) { try SQLiteCaptureIndex(path: path) }
    }
}
