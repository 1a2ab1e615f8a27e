#if canImport(Glibc)
import Glibc
#endif
import CloudCore
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// `cloudgen serve`: opens the store (reconciling what a crash left), builds the routes and runs
/// until SIGTERM or SIGINT, which finish the requests in flight first.
public enum CloudServer {
    /// The application for `configuration`, its store opened and reconciled. Tests drive it in
    /// process (HummingbirdTesting) or live; `announce` is told the address once it listens.
    public static func application(_ configuration: ServiceConfiguration, logger: Logger,
                                   announce: @escaping @Sendable (String) -> Void = { _ in }) async throws -> some ApplicationProtocol {
        try configuration.validate()
        let store = try CaptureStore(root: URL(fileURLWithPath: configuration.dataDirectory, isDirectory: true))
        let reconciled = try await store.reconcile()
        logger.info("store \(configuration.dataDirectory): \(reconciled)")
        let service = ServiceState(configuration: configuration, store: store)
        service.metrics.capturesStored.set(Double(try await store.index.count()))
        // HEAD answers as GET would, without the body (RFC 9110).
        let router = Router(context: BasicRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: MetricsMiddleware(metrics: service.metrics))
        router.add(middleware: OriginMiddleware(origins: RequestOrigins(configuration: configuration)))
        router.add(middleware: ProblemMiddleware(routes: service.routes))
        if let token = configuration.token { router.add(middleware: AuthMiddleware(token: Array(token.utf8))) }
        service.registerRoutes(on: router)
        let host = configuration.host
        return Application(
            router: router,
            configuration: .init(address: .hostname(host, port: configuration.port), serverName: "cloudgen"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                let shown = host.contains(":") ? "[\(host)]" : host
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
}
