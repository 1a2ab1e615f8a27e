import PostgresNIO

/// The PostgreSQL index's schema, in numbered steps applied in order, each once. Replicas
/// started together all call `apply`; the first to take the advisory lock migrates, the others
/// wait for it and then find nothing left to do. `pg_advisory_xact_lock` (the transaction-scoped
/// form of `pg_advisory_lock`) is released by the commit or by the connection dropping, so a
/// replica that dies mid-migration blocks no one, and its half-applied step rolls back with it.
enum PostgresMigrations {
    /// Any 64-bit number the replicas agree on; this one is "cloudgen" in ASCII.
    static let lockKey: Int64 = 0x636C_6F75_6467_656E

    /// Text columns compare by byte (`COLLATE "C"`), whatever the database's locale: ids sort as
    /// they do in SQLite, and the name order folds ASCII case only, as SQLite's NOCASE does.
    static let steps: [(version: Int, sql: [String])] = [
        (
            1,
            [
                """
                CREATE TABLE capture (
                    id text COLLATE "C" PRIMARY KEY,
                    created bigint NOT NULL,
                    source text NOT NULL,
                    points bigint NOT NULL,
                    min_x double precision, min_y double precision, min_z double precision,
                    max_x double precision, max_y double precision, max_z double precision,
                    bytes bigint NOT NULL,
                    frames bigint NOT NULL,
                    report text NOT NULL,
                    name text,
                    note text,
                    tags text NOT NULL,
                    files text NOT NULL,
                    revision bigint NOT NULL,
                    sort_name text COLLATE "C" GENERATED ALWAYS AS (lower(COALESCE(name, '') COLLATE "C")) STORED
                )
                """,
                // The listing's other orders seek these as the newest-first order seeks the key.
                "CREATE INDEX capture_by_points ON capture (points, id)",
                "CREATE INDEX capture_by_name ON capture (sort_name, id)",
                """
                CREATE TABLE capture_tag (
                    capture_id text COLLATE "C" NOT NULL REFERENCES capture (id) ON DELETE CASCADE,
                    tag text NOT NULL,
                    PRIMARY KEY (capture_id, tag)
                )
                """,
                "CREATE INDEX capture_tag_by_tag ON capture_tag (tag, capture_id)",
                // `replica` and `lease_until` (the database's clock, so that replicas' clocks need
                // not agree) say who runs an unfinished job and until when it is theirs.
                """
                CREATE TABLE job (
                    id text COLLATE "C" PRIMARY KEY,
                    state text NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed')),
                    created bigint NOT NULL,
                    updated bigint NOT NULL,
                    frames_done bigint NOT NULL,
                    frames_total bigint,
                    capture_id text,
                    problem text,
                    replica text NOT NULL,
                    lease_until timestamptz NOT NULL
                )
                """,
                "CREATE INDEX job_unfinished ON job (lease_until) WHERE state IN ('queued', 'running')"
            ]
        ),
        (
            // Jobs whose replica died are taken over by another (`claimAbandonedJob`): each start
            // is counted, so that a job that kills its replica every time ends failed.
            2,
            ["ALTER TABLE job ADD COLUMN attempts integer NOT NULL DEFAULT 1"]
        )
    ]

    /// Brings the schema up to date, in one transaction under the advisory lock; each step
    /// applied is recorded with the replica that applied it.
    static func apply(_ index: PostgresCaptureIndex) async throws {
        let replica = index.replica
        let logger = index.logger
        try await index.inTransaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS schema_migration (
                    version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now(), applied_by text NOT NULL)
                """, logger: logger)
            var applied = Set<Int>()
            for try await version in try await connection.query("SELECT version FROM schema_migration", logger: logger)
                .decode(Int.self)
            {
                applied.insert(version)
            }
            for step in steps where !applied.contains(step.version) {
                for statement in step.sql { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
                try await connection.query(
                    "INSERT INTO schema_migration (version, applied_by) VALUES (\(step.version), \(replica))", logger: logger)
                logger.info("capture index \(index.address): schema version \(step.version) applied")
            }
        }
    }
}
