import CloudCore
import CloudService
import Foundation
import SharedTestData
import XCTest

/// Captures whose files have a content known from their id alone, so that a test (or a test
/// after a `kill -9`) can tell a complete capture from a half-written one byte for byte.
enum StoreFixture {
    /// The files of every fixture capture: the cloud and a second one, as a real capture has.
    static let fileNames = [CaptureStore.cloudFileName, "preview.png"]

    /// The content of `file` in capture `id`: 1 to 48 KiB of bytes seeded by both names.
    static func content(of file: String, in id: CaptureID) -> [UInt8] {
        var seed: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a over "id/file"
        for byte in "\(id.rawValue)/\(file)".utf8 { seed = (seed ^ UInt64(byte)) &* 0x100_0000_01b3 }
        var random = SplitMix64(seed: seed)
        let count = 1024 + Int(random.next() % (47 * 1024))
        // Eight bytes per draw: a debug build is slow enough per element to matter over 400 captures.
        var words = [UInt64](repeating: 0, count: count / 8 + 1)
        for i in words.indices { words[i] = random.next() }
        return words.withUnsafeBytes { Array($0.prefix(count)) }
    }

    static func record(_ id: CaptureID = CaptureID(), created: Date = Date(), bytes: Int = 0) -> CaptureRecord {
        CaptureRecord(
            id: id, created: created, source: "synthetic:seed=\(bytes % 97)", points: bytes / 15,
            bounds: bytes % 2 == 0 ? nil : .init(min: SIMD3(-1.5, -0.25, 0.5), max: SIMD3(2, 1.125, 4.75)),
            bytes: bytes, frames: 1 + bytes % 3, report: #"{"id":"\#(id)","points":\#(bytes / 15)}"#)
    }

    /// Writes a capture's files into a staging folder, in several writes (so that a kill can land
    /// in the middle of one), and commits it.
    @discardableResult
    static func commitCapture(_ store: CaptureStore) async throws -> CaptureRecord {
        let id = CaptureID()
        let folder = try store.makeStaging()
        for name in fileNames {
            let bytes = content(of: name, in: id)
            let path = folder.appendingPathComponent(name).path
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            for start in stride(from: 0, to: bytes.count, by: 4096) {
                try handle.write(contentsOf: bytes[start..<min(start + 4096, bytes.count)])
            }
            try handle.close()
        }
        let record = record(id, bytes: content(of: CaptureStore.cloudFileName, in: id).count)
        try await store.commit(staging: folder, record: record)
        return record
    }

    /// What is wrong with the stored capture `id` (its row, its folder, each file's bytes); empty if nothing.
    static func problems(_ id: CaptureID, in store: CaptureStore) async throws -> [String] {
        guard let row = try await store.index.capture(id) else { return ["\(id): no row"] }
        guard let folder = store.folder(id) else { return ["\(id): no folder"] }
        var problems: [String] = []
        for name in fileNames {
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) else {
                problems.append("\(id)/\(name): missing")
                continue
            }
            if [UInt8](data) != content(of: name, in: id) { problems.append("\(id)/\(name): \(data.count) bytes, not the ones written") }
        }
        if row != record(id, created: row.created, bytes: content(of: CaptureStore.cloudFileName, in: id).count) {
            problems.append("\(id): row \(row) is not the one committed")
        }
        return problems
    }

    /// The names inside `folder`, sorted.
    static func entries(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }
}

extension XCTestCase {
    /// A scratch folder removed after the test.
    func scratchFolder() throws -> URL {
        let folder = try makeScratchFolder()
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return folder
    }
}
