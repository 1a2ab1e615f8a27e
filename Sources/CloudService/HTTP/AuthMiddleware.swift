import Hummingbird

/// `Authorization: Bearer TOKEN` on every request when the server has a token, but for the ones
/// that show nothing stored: /healthz, and the pages and API document a browser must load before it
/// can send the token (the pages ask for it and send it with every request of their own).
/// The comparison takes the same time whatever the bytes, so timing tells nothing of the token.
struct AuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: [UInt8]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if Self.isOpen(request.uri.path) && (request.method == .get || request.method == .head) {
            return try await next(request, context)
        }
        guard Self.authorized(request.head, token: token) else { throw Self.refusal }
        return try await next(request, context)
    }

    static var refusal: Problem {
        Problem(
            .unauthorized, "this server needs Authorization: Bearer TOKEN (the token of its --token-file)",
            headers: [.wwwAuthenticate: "Bearer"])
    }

    static var open: Set<String> { ["/healthz", "/", "/openapi.json"] }

    /// The open paths, a capture's 3D view page (/view/{id}) and a stream's page (/live/{id}),
    /// which hold no data either: they fetch the points with the token the index page keeps.
    static func isOpen(_ path: String) -> Bool {
        open.contains(path) || ["/view/", "/live/"].contains { path.hasPrefix($0) && !path.dropFirst($0.count).contains("/") }
    }

    /// Whether `request` carries `Authorization: Bearer TOKEN` with exactly the token.
    /// A browser's WebSocket cannot carry that header, so an upgrade may offer the token as the
    /// subprotocol `bearer.TOKEN` instead (beside `cloudgen`, the one the server names back).
    static func authorized(_ request: HTTPRequest, token: [UInt8]) -> Bool {
        if let value = request.headerFields[.authorization], value.hasPrefix("Bearer ") {
            return equal(Array(value.dropFirst("Bearer ".count).utf8), token)
        }
        guard RequestOrigins.isWebSocketUpgrade(request) else { return false }
        return StreamSockets.offeredProtocols(request).contains {
            $0.hasPrefix("bearer.") && equal(Array($0.dropFirst("bearer.".count).utf8), token)
        }
    }

    /// Equal when both the lengths and every byte agree. The time depends only on the server's
    /// token (its length is no secret), never on where a guess goes wrong. (A length difference
    /// is a flag of its own: folded into the byte differences it could wrap to zero, and a token
    /// with 256 more bytes after it would pass.)
    static func equal(_ given: [UInt8], _ token: [UInt8]) -> Bool {
        var difference: UInt8 = given.count == token.count ? 0 : 1
        for i in 0..<token.count {
            difference |= (i < given.count ? given[i] : 0) ^ token[i]
        }
        return difference == 0
    }
}
