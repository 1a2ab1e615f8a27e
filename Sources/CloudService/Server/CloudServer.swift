import CloudCore
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import Prometheus
import SafeIO
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
import UnixSignals
#endif

/// `cloudgen serve`: opens the store (reconciling what a crash left), builds the routes and runs
/// until SIGTERM or SIGINT, which finish the requests in flight first and then stop the running
/// jobs (`RunningJobs`).
public enum CloudServer {
    /// The application for `configuration`, its store opened and reconciled. Tests drive it in
    /// process (HummingbirdTesting) or live; `announce` is told the address once it listens.
    public static func application(
        _ configuration: ServiceConfiguration, logger: Logger,
        announce: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws -> some ApplicationProtocol {
        try configuration.validate()
        // A shared index connects and migrates before the store is reconciled against it. Its
        // client runs from here, not from the group below, since reconciling needs it first; the
        // group closes it as it stops (`PostgresCaptureIndex.run()`).
        var shared: PostgresCaptureIndex?
        if let address = try configuration.index.map(PostgresIndexAddress.init(parsing:)) {
            shared = try await PostgresCaptureIndex.open(
                address, waitLimit: .milliseconds(Int64(configuration.indexWaitSeconds * 1000)), logger: logger)
            logger.info("capture index \(address), replica \(shared?.replica ?? "")")
        }
        let store: CaptureStore
        let reconciled: ReconcileReport
        let claim: DataFolderClaim
        do {
            // Before anything in the folder is read or cleaned up: a folder another server or
            // another index holds is refused here, with nothing in it touched.
            let root = URL(fileURLWithPath: configuration.dataDirectory, isDirectory: true)
            claim = try DataFolderClaim.take(root, for: try await shared?.folderOwner() ?? .sqlite)
            store = try CaptureStore(root: root, index: shared)
            reconciled = try await store.reconcile()
        } catch {
            await shared?.close()
            throw error
        }
        logger.info("store \(configuration.dataDirectory): \(reconciled)")
        // What the requests' and streams' claims may hold between them: what this process has to spare now.
        MemoryLedger.setCapacity(MemoryLedger.serverCapacity())
        let service = ServiceState(configuration: configuration, store: store, logger: logger)
        service.metrics.capturesStored.set(Double(try await store.index.count()))
        // HEAD answers as GET would, without the body (RFC 9110).
        let router = Router(context: BasicRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: MetricsMiddleware(metrics: service.metrics))
        let origins = RequestOrigins(configuration: configuration)
        let token = configuration.token.map { Array($0.utf8) }
        router.add(middleware: OriginMiddleware(origins: origins))
        router.add(middleware: ProblemMiddleware(routes: service.routes))
        if let token { router.add(middleware: AuthMiddleware(token: token)) }
        service.addRoutes(to: router)
        let host = configuration.host
        let maxUpload = configuration.maxUploadBytes
        // 100 Continue only for a request the middlewares above will let through.
        let accepts: @Sendable (HTTPRequest) -> Bool = { head in
            if let length = head.headerFields[.contentLength].flatMap(Int.init), length > maxUpload { return false }
            if (try? origins.check(head)) == nil { return false }
            return token.map { AuthMiddleware<BasicRequestContext>.authorized(head, token: $0) } ?? true
        }
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ContinueHandler(accepts: accepts), ClientDeparture()],
            idleTimeout: .milliseconds(Int64(configuration.idleTimeoutSeconds * 1000)))
        // Upgrades go to their own router, behind the same Host, Origin and token checks.
        let sockets = Router(context: BasicWebSocketRequestContext.self)
        sockets.add(middleware: OriginMiddleware(origins: origins))
        if let token { sockets.add(middleware: AuthMiddleware(token: token)) }
        service.addSockets(to: sockets)
        let webSocketResponder = sockets.buildResponder()
        // The same checks, made before the upgrade handler so that a refusal is a problem document.
        let hub = service.streams
        let upgradeRefusal: @Sendable (HTTPRequest) -> Problem? = { head in
            do {
                try origins.check(head)
                if let token, !AuthMiddleware<BasicRequestContext>.authorized(head, token: token) {
                    return AuthMiddleware<BasicRequestContext>.refusal
                }
                try StreamSockets.checkTarget(head.path ?? "/", hub: hub)
                return nil
            } catch {
                return Problem.from(error)
            }
        }
        let webSocket = WebSocketServerConfiguration(
            maxFrameSize: configuration.streams.maxPushBytes, autoPing: .enabled(timePeriod: .seconds(20)))
        return Application(
            responder: DepartureAwareResponder(routes: router.buildResponder()),
            server: HTTPServerBuilder { responder in
                FirstHeadDeadlineChannel(
                    inner: UpgradeRefusalChannel(
                        inner: HTTP1WebSocketUpgradeChannel(
                            responder: responder, webSocketResponder: webSocketResponder, configuration: .init(http1: http1, ws: webSocket)),
                        refusal: upgradeRefusal),
                    deadline: .milliseconds(Int64(configuration.idleTimeoutSeconds * 1000)))
            },
            configuration: .init(
                address: .hostname(host, port: configuration.port), serverName: "cloudgen",
                availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxConnections)),
            // Stopped after the HTTP server (a group stops its services last to first), and waited for.
            // The folder's claim first, so that the folder is let go once everything else has
            // stopped; then the shared index, which stops next to last: jobs save how they ended
            // through it; the sweep for other replicas' jobs last, so that it starts none as the jobs stop.
            services: [claim as any Service] + (shared.map { [$0 as any Service] } ?? [])
                + [service.jobs.running, service.streams, IdleTrim(pools: service.pools, streams: service.streams)]
                + (shared.map { _ in [JobTakeover(board: service.jobs, interval: .seconds(5)) as any Service] } ?? []),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                let shown = host.contains(":") ? "[\(host)]" : host
                service.listening.authority = "\(shown):\(port)"
                announce("http://\(shown):\(port)")
            },
            logger: logger)
    }

    /// Serves until a signal; `announce` prints the URL.
    public static func run(_ configuration: ServiceConfiguration, announce: @escaping @Sendable (String) -> Void) async throws {
        keepFreedMemory()
        var logger = Logger(label: "cloudgen")
        logger.logLevel = .info
        let app = try await application(configuration, logger: logger, announce: announce)
        try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
    }

    /// glibc gives blocks above its mmap threshold back to the kernel when they are freed, so every
    /// upload's megabyte-sized buffers (pixels, metres, points) were mapped and zero-filled anew: a
    /// tenth of the service's time went to page faults. A server that takes one frame after
    /// another keeps them instead (its heap stays at its busiest size).
    static func keepFreedMemory() {
        #if canImport(Glibc)
        // Glibc's Swift module imports neither mallopt nor <malloc.h>'s M_TRIM_THRESHOLD (-1) and
        // M_MMAP_THRESHOLD (-3); the C library has them all the same.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        _ = mallopt(-3, 32 << 20)
        _ = mallopt(-1, 1 << 30)
        #endif
    }

    /// Gives back to the system the memory the allocator keeps (`keepFreedMemory`), in every
    /// arena: once the server is idle (`IdleTrim`), what the last burst of work freed is no
    /// longer worth keeping.
    static func trimFreedMemory() {
        #if canImport(Glibc)
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        #endif
    }
}
