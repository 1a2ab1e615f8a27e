import CloudCore
import Foundation
import GRDB

extension SQLiteCaptureIndex {
    public func insert(_ capture: CaptureRecord) async throws {
        let tags = try IndexText.json(capture.labels.tags)
        let files = try IndexText.json(capture.uploadedFiles)
        try await writing { db in
            try db.execute(
                sql: """
                    INSERT INTO capture (id, created, source, points, minX, minY, minZ, maxX, maxY, maxZ, bytes, frames, report,
                                         name, note, tags, files, revision)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    capture.id.rawValue, capture.created.unixMilliseconds, capture.source, capture.points,
                    capture.bounds?.min.x, capture.bounds?.min.y, capture.bounds?.min.z,
                    capture.bounds?.max.x, capture.bounds?.max.y, capture.bounds?.max.z,
                    capture.bytes, capture.frames, capture.report,
                    capture.labels.name, capture.labels.note, tags, files, capture.revision
                ])
            try Self.indexTags(capture.labels.tags, of: capture.id, db)
        }
    }

    public func capture(_ id: CaptureID) async throws -> CaptureRecord? {
        let path = path
        return try await reading { db in
            try Row.fetchOne(db, sql: "SELECT * FROM capture WHERE id = ?", arguments: [id.rawValue]).map { try Self.capture($0, path) }
        }
    }

    public func list(_ query: CaptureQuery) async throws -> [CaptureRecord] {
        let path = path
        let (sql, arguments) = Self.listSQL(query)
        return try await reading { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { try Self.capture($0, path) }
        }
    }

    /// The page's SELECT (CapturePageSQL). The text is matched with LIKE, which folds ASCII case,
    /// on a pattern that escapes the wildcards.
    static func listSQL(_ query: CaptureQuery) -> (String, StatementArguments) {
        var arguments: StatementArguments = []
        let dialect = CapturePageSQL.Dialect(sortNameColumn: "sortName", tagCaptureColumn: "captureID") { column, text, bind in
            "\(column) LIKE \(bind(.text("%" + likeLiteral(text) + "%"))) ESCAPE '\\'"
        }
        let sql = CapturePageSQL.select(query, dialect) { value in
            switch value {
            case .text(let text): arguments += [text]
            case .integer(let number): arguments += [number]
            }
            return "?"
        }
        return (sql, arguments)
    }

    public func updateLabels(_ id: CaptureID, _ labels: CaptureLabels) async throws -> CaptureRecord? {
        let path = path
        let tags = try IndexText.json(labels.tags)
        return try await writing { db in
            try db.execute(
                sql: "UPDATE capture SET name = ?, note = ?, tags = ?, revision = revision + 1 WHERE id = ?",
                arguments: [labels.name, labels.note, tags, id.rawValue])
            guard db.changesCount > 0 else { return nil }
            try db.execute(sql: "DELETE FROM capture_tag WHERE captureID = ?", arguments: [id.rawValue])
            try Self.indexTags(labels.tags, of: id, db)
            return try Row.fetchOne(db, sql: "SELECT * FROM capture WHERE id = ?", arguments: [id.rawValue]).map {
                try Self.capture($0, path)
            }
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

    private static func indexTags(_ tags: [String], of id: CaptureID, _ db: Database) throws {
        for tag in Set(tags) {
            try db.execute(sql: "INSERT INTO capture_tag (captureID, tag) VALUES (?, ?)", arguments: [id.rawValue, tag])
        }
    }

    private static func capture(_ row: Row, _ path: String) throws -> CaptureRecord {
        // All six or none (an empty cloud).
        let c = ["minX", "minY", "minZ", "maxX", "maxY", "maxZ"].compactMap { row[$0] as Double? }
        let bounds = c.count == 6 ? CaptureRecord.Bounds(min: SIMD3(c[0], c[1], c[2]), max: SIMD3(c[3], c[4], c[5])) : nil
        let id: CaptureID = try id(row["id"], path)
        let tagsText: String = row["tags"]
        let filesText: String = row["files"]
        guard let tags = try? JSONDecoder().decode([String].self, from: Data(tagsText.utf8)),
            let files = try? JSONDecoder().decode([String: String].self, from: Data(filesText.utf8))
        else {
            throw CloudError.io("\(path): capture \(id) has tags or file names that are not the JSON the server writes")
        }
        return CaptureRecord(
            id: id, created: Date(unixMilliseconds: row["created"]),
            source: row["source"], points: row["points"], bounds: bounds, bytes: row["bytes"],
            frames: row["frames"], report: row["report"],
            labels: CaptureLabels(name: row["name"], tags: tags, note: row["note"]),
            uploadedFiles: files, revision: row["revision"])
    }

    /// `text` as a LIKE pattern that matches exactly it: the wildcards `%` and `_`, and the
    /// escape character itself, each preceded by the escape character `\` (the query's ESCAPE).
    static func likeLiteral(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    /// An id read back: the index holds only ids the server made, so another is a damaged file.
    static func id<Kind>(_ text: String, _ path: String) throws -> ServerID<Kind> {
        guard let id = ServerID<Kind>(validating: text) else {
            throw CloudError.io("\(path): the capture index holds an id the server cannot have made: \(text)")
        }
        return id
    }
}
