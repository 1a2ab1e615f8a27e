import Hummingbird
import HummingbirdTesting
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
}
