import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOHTTP1
import XCTest

@testable import CloudService

/// A request body cut off by its connection closing is the client's leaving (499), however the
/// error reaches the middleware: the parser's "stream ended" can come before the connection is
/// marked gone, and counting it as a server error (500) would be wrong.
final class ProblemMiddlewareTests: XCTestCase {
    func testABodyCutOffByTheConnectionIsAClientClose() async throws {
        let router = Router()
        router.add(middleware: ProblemMiddleware(routes: RouteTable()))
        router.post("/cut") { _, _ -> String in throw HTTPParserError.invalidEOFState }
        router.post("/broken") { _, _ -> String in throw HTTPParserError.invalidHeaderToken }
        try await Application(router: router).test(.router) { client in
            let cut = try await client.execute(uri: "/cut", method: .post)
            XCTAssertEqual(cut.status.code, 499)
            // Any other parser error is still answered as what it is.
            let broken = try await client.execute(uri: "/broken", method: .post)
            XCTAssertEqual(broken.status, .internalServerError)
        }
    }

    /// A 503 is back-pressure the client retries after Retry-After (captures waiting, the index
    /// away): not an error an operator is paged for. A bug's 500 is.
    func testBusyIsNotLoggedAsAnErrorAndABugIs() async throws {
        let router = Router()
        router.add(middleware: ProblemMiddleware(routes: RouteTable()))
        router.post("/busy") { _, _ -> String in
            throw Problem(.serviceUnavailable, "the server is busy; retry shortly", headers: [.retryAfter: "5"])
        }
        router.post("/bug") { _, _ -> String in throw CocoaError(.featureUnsupported) }
        let errors = ErrorLog()
        var logger = Logger(label: "problem-middleware-test") { _ in errors }
        logger.logLevel = .trace
        try await Application(router: router, logger: logger).test(.router) { client in
            let busy = try await client.execute(uri: "/busy", method: .post)
            XCTAssertEqual(busy.status, .serviceUnavailable)
            XCTAssertEqual(errors.messages, [])
            let bug = try await client.execute(uri: "/bug", method: .post)
            XCTAssertEqual(bug.status, .internalServerError)
            XCTAssertEqual(errors.messages.count, 1, "\(errors.messages)")
        }
    }
}
