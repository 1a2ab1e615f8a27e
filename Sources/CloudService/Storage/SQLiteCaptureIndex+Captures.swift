import CloudCore
import Foundation
import GRDB

extension SQLiteCaptureIndex {
    public func insert(_ capture: CaptureRecord) async throws {
        try await writing { db in
            try db.execute(sql: """
                INSERT INTO capture (id, created, source, points, minX, minY, minZ, maxX, maxY, maxZ, bytes, frames, report)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [capture.id.rawValue, capture.created.timeIntervalSince1970, capture.source, capture.points,
                                 capture.bounds?.min.x, capture.bounds?.min.y, capture.bounds?.min.z,
                                 capture.bounds?.max.x, capture.bounds?.max.y, capture.bounds?.max.z,
                                 capture.bytes, capture.frames, capture.report])
        }
    }

    public func capture(_ id: CaptureID) async throws -> CaptureRecord? {
        let path = path
        return try await reading { db in
            try Row.fetchOne(db, sql: "SELECT * FROM capture WHERE id = ?", arguments: [id.rawValue]).map { try Self.capture($0, path) }
        }
    }

    public func list(limit: Int, after: CaptureID?) async throws -> [CaptureRecord] {
        let path = path
        return try await reading { db in
            let rows = if let after {
                try Row.fetchAll(db, sql: "SELECT * FROM capture WHERE id < ? ORDER BY id DESC LIMIT ?",
                                 arguments: [after.rawValue, max(0, limit)])
            } else {
                try Row.fetchAll(db, sql: "SELECT * FROM capture ORDER BY id DESC LIMIT ?", arguments: [max(0, limit)])
            }
            return try rows.map { try Self.capture($0, path) }
        }
    }

    public func delete(_ id: CaptureID) async throws -> Bool {
        try await writing { db in
            try db.execute(sql: "DELETE FROM capture WHERE id = ?", arguments: [id.rawValue])
            return db.changesCount > 0
        }
    }

    public func count() async throws -> Int {
        try await reading { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM capture") ?? 0 }
    }

    public func allIDs() async throws -> [CaptureID] {
        let path = path
        return try await reading { db in
            try String.fetchAll(db, sql: "SELECT id FROM capture ORDER BY id").map { try Self.id($0, path) }
        }
    }

    private static func capture(_ row: Row, _ path: String) throws -> CaptureRecord {
        let corners: [Double?] = ["minX", "minY", "minZ", "maxX", "maxY", "maxZ"].map { row[$0] }
        let bounds: CaptureRecord.Bounds?
        if let c = corners as? [Double] {
            bounds = .init(min: SIMD3(c[0], c[1], c[2]), max: SIMD3(c[3], c[4], c[5]))
        } else {
            bounds = nil
        }
        return CaptureRecord(id: try id(row["id"], path), created: Date(timeIntervalSince1970: row["created"]),
                             source: row["source"], points: row["points"], bounds: bounds, bytes: row["bytes"],
                             frames: row["frames"], report: row["report"])
    }

    /// An id read back: the index holds only ids the server made, so another is a damaged file.
    static func id<Kind>(_ text: String, _ path: String) throws -> ServerID<Kind> {
        guard let id = ServerID<Kind>(validating: text) else {
            throw CloudError.io("\(path): the capture index holds an id the server cannot have made: \(text)")
        }
        return id
    }
}
