import CloudCore
import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import ServiceLifecycle

/// The capture index in a PostgreSQL database (`serve --index postgresql://...`), shared by
/// several server processes (replicas) on one data folder. Same rows and answers as
/// `SQLiteCaptureIndex` (the contract tests hold both to them); what sharing adds:
///
/// - The schema is migrated once, under an advisory lock, by whichever replica starts first
///   (`PostgresMigrations`).
/// - Each unfinished job carries the replica that runs it and a lease this replica renews while it
///   lives (`run()`); a job whose lease ran out is taken over by another replica (`JobTakeover`),
///   never a live replica's.
/// - A database that cannot be reached is `IndexUnavailable` (503 with Retry-After), after at
///   most `waitLimit` for a connection; the pool reconnects by itself when the database returns.
public final class PostgresCaptureIndex: CaptureIndex, Service {
    public let address: PostgresIndexAddress
    /// This process among the replicas, made at start: the owner written on its jobs.
    public let replica: String
    /// How long a job stays this replica's without a renewal; renewed every third of it.
    let lease: Duration
    let waitLimit: Duration
    let client: PostgresClient
    let logger: Logger
    /// The client's `run()`: the pool only hands out connections while it runs.
    private let clientTask = NIOLockedValueBox<Task<Void, Never>?>(nil)

    public var isShared: Bool { true }

    private init(address: PostgresIndexAddress, lease: Duration, waitLimit: Duration, logger: Logger) {
        self.address = address
        self.lease = lease
        self.waitLimit = waitLimit
        self.logger = logger
        let host = ProcessInfo.processInfo.hostName
        replica = "\(host)/\(getpid())/\(UUID().uuidString.prefix(8).lowercased())"
        var configuration = address.clientConfiguration
        // A few connections are plenty: every statement is short, and replicas share the server's limit.
        configuration.options.maximumConnections = 8
        configuration.options.connectTimeout = waitLimit
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
    }

    /// Connects and brings the schema up to date. A database that cannot be reached is an I/O
    /// error naming it (the server does not start), as is one that refuses the schema.
    public static func open(
        _ address: PostgresIndexAddress, lease: Duration = .seconds(30), waitLimit: Duration = .seconds(5),
        logger: Logger = Logger(label: "cloudgen.index", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async throws -> PostgresCaptureIndex {
        let index = PostgresCaptureIndex(address: address, lease: lease, waitLimit: waitLimit, logger: logger)
        let client = index.client
        index.clientTask.withLockedValue { $0 = Task { await client.run() } }
        do {
            try await PostgresMigrations.apply(index)
        } catch {
            await index.close()
            if let unavailable = error as? IndexUnavailable {
                throw CloudError.io("\(address): cannot reach the capture index: \(unavailable.cause)")
            }
            throw error
        }
        return index
    }

    /// Renews this replica's job leases until the server stops (a `Service` of its group, stopped
    /// after the jobs have saved how they ended), and meanwhile fails the abandoned jobs tried too
    /// often to be taken over again; then closes the index.
    public func run() async {
        await cancelWhenGracefulShutdown { [self] in
            while !Task.isCancelled {
                do {
                    try await renewLeases()
                    _ = try await markUnfinishedJobsInterrupted(at: Date())
                } catch {
                    // The next round tries again; a lease outlives two missed renewals.
                    logger.warning("capture index: cannot renew job leases: \(error)")
                }
                try? await Task.sleep(for: lease / 3)
            }
        }
        await close()
    }

    /// Gives up this replica's leases (its jobs cannot run on without it, so another replica
    /// takes them over at once) and closes the connections. Safe twice.
    public func close() async {
        guard
            let task = clientTask.withLockedValue({ task in
                defer { task = nil }
                return task
            })
        else { return }
        // A task of its own: a close from a cancelled task (a server stopped hard) must still
        // give the leases up, and the pool refuses work to a cancelled task.
        await Task { [self] in
            _ = try? await withConnection { [replica, logger] connection in
                _ = try await connection.query(
                    """
                    UPDATE job SET lease_until = now() WHERE replica = \(replica) AND state IN ('queued', 'running')
                    """, logger: logger)
            }
        }.value
        task.cancel()
        await task.value
    }

    /// Runs `body` on a pooled connection. Waits at most `waitLimit` for one; once `body` has
    /// started it is not cut short (a write cut off in flight might still commit, and its caller
    /// would then undo files the row names). The driver's errors become `IndexUnavailable` when the
    /// database cannot be reached, or `CloudError.io` naming the address.
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let start = NIOLockedValueBox(ConnectionStart.waiting)
        do {
            return try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask { [client] in
                    try await client.withConnection { connection in
                        let begun = start.withLockedValue { state in
                            if state == .waiting { state = .started }
                            return state == .started
                        }
                        guard begun else { throw IndexUnavailable(cause: "no connection within the wait limit") }
                        let value: T = try await body(connection)
                        return value
                    }
                }
                group.addTask { [waitLimit] in
                    try await Task.sleep(for: waitLimit)
                    let gaveUp = start.withLockedValue { state in
                        if state == .waiting { state = .gaveUp }
                        return state == .gaveUp
                    }
                    if gaveUp { throw IndexUnavailable(cause: "no connection within \(waitLimit)") }
                    return nil
                }
                while let result = try await group.next() {
                    if let result {
                        group.cancelAll()
                        return result
                    }
                }
                throw IndexUnavailable(cause: "the connection ended without an answer")
            }
        } catch {
            throw translated(error, sent: start.withLockedValue { $0 == .started })
        }
    }

    /// Runs `body` in one transaction on a pooled connection (`withConnection`). Only a connection
    /// lost once COMMIT was sent leaves the outcome unknown (`IndexUnavailable.maybeApplied`):
    /// before that, the database rolls the transaction back with the connection.
    func inTransaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let logger = logger
        let committing = NIOLockedValueBox(false)
        do {
            return try await withConnection { connection in
                try await connection.query("BEGIN", logger: logger)
                let result: T
                do {
                    result = try await body(connection)
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
                committing.withLockedValue { $0 = true }
                try await connection.query("COMMIT", logger: logger)
                return result
            }
        } catch var unavailable as IndexUnavailable {
            unavailable.maybeApplied = committing.withLockedValue { $0 }
            throw unavailable
        }
    }

    /// The driver's error as the service's: a lost or refused connection, or the server saying it
    /// cannot serve now (SQLSTATE class 08 connection, 53 resources, 57P operator intervention),
    /// is `IndexUnavailable`; any other refusal is an I/O error naming the database.
    /// `sent`: whether `body` had started, so that a write may have reached the database.
    private func translated(_ error: Error, sent: Bool) -> Error {
        switch error {
        case is IndexUnavailable, is CloudError, is CancellationError:
            return error
        case let error as PSQLError where error.code == .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            let message = error.serverInfo?[.message] ?? String(reflecting: error)
            if state.hasPrefix("08") || state.hasPrefix("53") || state.hasPrefix("57P") {
                return IndexUnavailable(cause: "\(address): \(message) (SQLSTATE \(state))", maybeApplied: sent)
            }
            return CloudError.io("\(address): \(message) (SQLSTATE \(state))")
        case let error as PSQLError:
            return IndexUnavailable(
                cause: "\(address): \(error.code)\(error.underlying.map { ": \($0)" } ?? "")", maybeApplied: sent)
        default:
            // The pool's own (circuit breaker open, request cancelled) and the socket's.
            return IndexUnavailable(cause: "\(address): \(error)", maybeApplied: sent)
        }
    }
}

/// Whether a statement got its connection before the wait limit ran out, or gave up: decided once,
/// under a lock, so that a statement never runs after its caller was told it would not.
private enum ConnectionStart { case waiting, started, gaveUp }
