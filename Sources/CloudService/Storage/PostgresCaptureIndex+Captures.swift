import CloudCore
import Foundation
import PostgresNIO

extension PostgresCaptureIndex {
    public func insert(_ capture: CaptureRecord) async throws {
        let tags = try IndexText.json(capture.labels.tags)
        let files = try IndexText.json(capture.uploadedFiles)
        let logger = logger
        // An id already present fails on the primary key (SQLSTATE 23505), an I/O error naming the database.
        try await inTransaction { connection in
            let b = capture.bounds
            try await connection.query(
                """
                INSERT INTO capture (id, created, source, points, min_x, min_y, min_z, max_x, max_y, max_z, bytes, frames, report,
                                     name, note, tags, files, revision)
                VALUES (\(capture.id.rawValue), \(capture.created.unixMilliseconds), \(capture.source), \(capture.points),
                        \(b?.min.x), \(b?.min.y), \(b?.min.z), \(b?.max.x), \(b?.max.y), \(b?.max.z),
                        \(capture.bytes), \(capture.frames), \(capture.report),
                        \(capture.labels.name), \(capture.labels.note), \(tags), \(files), \(capture.revision))
                """, logger: logger)
            try await Self.indexTags(capture.labels.tags, of: capture.id, connection, logger)
        }
    }

    public func capture(_ id: CaptureID) async throws -> CaptureRecord? {
        try await captures("SELECT * FROM capture WHERE id = \(id.rawValue)").first
    }

    public func list(_ query: CaptureQuery) async throws -> [CaptureRecord] {
        try await captures(Self.listQuery(query))
    }

    /// The page's SELECT (CapturePageSQL). The text is matched with ASCII case folded and no
    /// wildcards (`strpos` on `lower` under the "C" collation), as SQLite's LIKE on its escaped
    /// pattern matches it.
    static func listQuery(_ query: CaptureQuery) -> PostgresQuery {
        var binds = PostgresBindings()
        let dialect = CapturePageSQL.Dialect(sortNameColumn: "sort_name", tagCaptureColumn: "capture_id") { column, text, bind in
            "strpos(lower(\(column) COLLATE \"C\"), lower(\(bind(.text(text))) COLLATE \"C\")) > 0"
        }
        let sql = CapturePageSQL.select(query, dialect) { value in
            switch value {
            case .text(let text): binds.append(text)
            case .integer(let number): binds.append(number)
            }
            return "$\(binds.count)"
        }
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }

    public func updateLabels(_ id: CaptureID, _ labels: CaptureLabels) async throws -> CaptureRecord? {
        let tags = try IndexText.json(labels.tags)
        let logger = logger
        let address = address
        return try await inTransaction { connection in
            let rows = try await connection.query(
                """
                UPDATE capture SET name = \(labels.name), note = \(labels.note), tags = \(tags), revision = revision + 1
                WHERE id = \(id.rawValue) RETURNING *
                """, logger: logger
            ).collect()
            guard let row = rows.first else { return nil }
            try await connection.query("DELETE FROM capture_tag WHERE capture_id = \(id.rawValue)", logger: logger)
            try await Self.indexTags(labels.tags, of: id, connection, logger)
            return try Self.capture(row, address)
        }
    }

    public func delete(_ id: CaptureID) async throws -> Bool {
        let logger = logger
        return try await withConnection { connection in
            let deleted = try await connection.query("DELETE FROM capture WHERE id = \(id.rawValue) RETURNING id", logger: logger).collect()
            return !deleted.isEmpty
        }
    }

    public func count() async throws -> Int {
        let logger = logger
        return try await withConnection { connection in
            var total = 0
            for try await count in try await connection.query("SELECT COUNT(*) FROM capture", logger: logger).decode(Int.self) {
                total = count
            }
            return total
        }
    }

    public func allIDs() async throws -> [CaptureID] {
        let logger = logger
        let address = address
        return try await withConnection { connection in
            var ids: [CaptureID] = []
            for try await text in try await connection.query("SELECT id FROM capture ORDER BY id", logger: logger).decode(String.self) {
                ids.append(try Self.id(text, address))
            }
            return ids
        }
    }

    private func captures(_ query: PostgresQuery) async throws -> [CaptureRecord] {
        let logger = logger
        let address = address
        return try await withConnection { connection in
            try await connection.query(query, logger: logger).collect().map { try Self.capture($0, address) }
        }
    }

    private static func indexTags(_ tags: [String], of id: CaptureID, _ connection: PostgresConnection, _ logger: Logger) async throws {
        for tag in Set(tags) {
            try await connection.query("INSERT INTO capture_tag (capture_id, tag) VALUES (\(id.rawValue), \(tag))", logger: logger)
        }
    }

    private static func capture(_ row: PostgresRow, _ address: PostgresIndexAddress) throws -> CaptureRecord {
        let row = row.makeRandomAccess()
        let id: CaptureID = try id(row["id"].decode(String.self), address)
        // All six or none (an empty cloud).
        let c = try ["min_x", "min_y", "min_z", "max_x", "max_y", "max_z"].compactMap { try row[$0].decode(Double?.self) }
        let bounds = c.count == 6 ? CaptureRecord.Bounds(min: SIMD3(c[0], c[1], c[2]), max: SIMD3(c[3], c[4], c[5])) : nil
        guard let tags = try? JSONDecoder().decode([String].self, from: Data(row["tags"].decode(String.self).utf8)),
            let files = try? JSONDecoder().decode([String: String].self, from: Data(row["files"].decode(String.self).utf8))
        else {
            throw CloudError.io("\(address): capture \(id) has tags or file names that are not the JSON the server writes")
        }
        return CaptureRecord(
            id: id, created: Date(unixMilliseconds: try row["created"].decode(Int64.self)),
            source: try row["source"].decode(String.self), points: try row["points"].decode(Int.self), bounds: bounds,
            bytes: try row["bytes"].decode(Int.self), frames: try row["frames"].decode(Int.self),
            report: try row["report"].decode(String.self),
            labels: CaptureLabels(
                name: try row["name"].decode(String?.self), tags: tags, note: try row["note"].decode(String?.self)),
            uploadedFiles: files, revision: try row["revision"].decode(Int.self))
    }

    /// An id read back: the index holds only ids the server made, so another is a damaged row.
    static func id<Kind>(_ text: String, _ address: PostgresIndexAddress) throws -> ServerID<Kind> {
        guard let id = ServerID<Kind>(validating: text) else {
            throw CloudError.io("\(address): the capture index holds an id the server cannot have made: \(text)")
        }
        return id
    }
}
