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

    /// The database this index is in, as a data folder records the index it belongs to: the
    /// cluster's system identifier (the same through any address or proxy, different for another
    /// cluster) and the database's name.
    public func folderOwner() async throws -> DataFolderOwner {
        let logger = logger
        let found = try await withConnection { connection -> DataFolderOwner? in
            let rows = try await connection.query(
                "SELECT system_identifier::text, current_database()::text FROM pg_control_system()", logger: logger)
            for try await (system, database) in rows.decode((String, String).self) {
                return .postgresql(system: system, database: database)
            }
            return nil
        }
        guard let found else { throw CloudError.io("\(address): the database did not say which cluster it is") }
        return found
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
    /// started it is not cut short by that limit (a write cut off in flight might still commit,
    /// and its caller would then undo files the row names), only by `answerLimit`, after which
    /// it counts as maybe applied. The driver's errors become `IndexUnavailable` when the
    /// database cannot be reached, or `CloudError.io` naming the address.
    ///
    /// The caller waits for whichever comes first, never for the driver's work to end: a lease
    /// or a statement that the database's going away left hanging (seen once in a few runs of
    /// `Tools/deploy/replicas-check`'s outage) would otherwise hold its request, and with it the
    /// server's graceful stop, for ever. Such work is cancelled and left to end on its own.
    func withConnection<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let race = ConnectionRace<T>()
        let (client, waitLimit, answerLimit) = (client, waitLimit, Self.answerLimit)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.wait(continuation)
                let work = Task {
                    do {
                        let value = try await client.withConnection { connection in
                            guard race.begin() else { throw IndexUnavailable(cause: "no connection within the wait limit") }
                            return try await body(connection)
                        }
                        race.finish(.success(value))
                    } catch {
                        race.finish(.failure(self.translated(error, sent: race.hasBegun)))
                    }
                }
                let timer = Task {
                    do { try await Task.sleep(for: waitLimit) } catch { return }
                    if race.giveUpWaiting() {
                        race.finish(.failure(IndexUnavailable(cause: "no connection within \(waitLimit)")))
                    } else {
                        do { try await Task.sleep(for: answerLimit) } catch { return }
                        race.finish(
                            .failure(IndexUnavailable(cause: "\(self.address): no answer within \(answerLimit)", maybeApplied: true)))
                    }
                }
                race.track(work: work, timer: timer)
            }
        } onCancel: {
            race.cancel()
        }
    }

    /// How long a statement, once it has its connection, may take before its caller is told the
    /// database did not answer: every statement here takes milliseconds.
    static let answerLimit: Duration = .seconds(30)

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

/// One statement's race between the driver's work and the limits, decided under a lock: whether
/// it got its connection before the wait limit ran out (so that a statement never runs after its
/// caller was told it would not), and which outcome reaches the caller, once.
private final class ConnectionRace<T: Sendable>: Sendable {
    private enum Start { case waiting, begun, gaveUp }

    private struct State {
        var start = Start.waiting
        var continuation: CheckedContinuation<T, Error>?
        var outcome: Result<T, Error>?
        var work: Task<Void, Never>?
        var timer: Task<Void, Never>?
        var cancelled = false
    }

    private let state = NIOLockedValueBox(State())

    func wait(_ continuation: CheckedContinuation<T, Error>) {
        state.withLockedValue { $0.continuation = continuation }
    }

    func track(work: Task<Void, Never>, timer: Task<Void, Never>) {
        let (finished, cancelled) = state.withLockedValue { state -> (Bool, Bool) in
            state.work = work
            state.timer = timer
            return (state.outcome != nil, state.cancelled)
        }
        if finished { timer.cancel() }
        if cancelled { work.cancel() }
    }

    /// Whether the statement may run: false once the caller was told it gave up waiting.
    func begin() -> Bool {
        state.withLockedValue { state in
            if state.start == .waiting { state.start = .begun }
            return state.start == .begun
        }
    }

    var hasBegun: Bool { state.withLockedValue { $0.start == .begun } }

    /// Whether the wait limit wins: only while the statement has not begun.
    func giveUpWaiting() -> Bool {
        state.withLockedValue { state in
            if state.start == .waiting { state.start = .gaveUp }
            return state.start == .gaveUp
        }
    }

    /// Tells the caller `outcome` unless it was told another; the loser's work is cancelled.
    func finish(_ outcome: Result<T, Error>) {
        let (continuation, work, timer) = state.withLockedValue {
            state -> (CheckedContinuation<T, Error>?, Task<Void, Never>?, Task<Void, Never>?) in
            guard state.outcome == nil else { return (nil, nil, nil) }
            state.outcome = outcome
            defer { state.continuation = nil }
            return (state.continuation, state.work, state.timer)
        }
        guard let continuation else { return }
        timer?.cancel()
        if case .failure = outcome { work?.cancel() }
        continuation.resume(with: outcome)
    }

    /// The caller's task was cancelled (its client left): so is the driver's work.
    func cancel() {
        let work = state.withLockedValue { state in
            state.cancelled = true
            return state.work
        }
        work?.cancel()
    }
}
