import HTTPTypes
import Hummingbird

/// Which names the server answers to and which web pages may drive it.
///
/// A server on loopback without a token trusts whoever can reach it, and a web page the user
/// visits can reach it: a form or `fetch` can POST an upload (and pin the CPU), and DNS rebinding
/// (attacker.example resolving to 127.0.0.1) makes the page same-origin, able to read and delete
/// captures. So:
/// - **Host** must be one of the server's names: loopback names, the address it listens on, and
///   `--allow-host` names. DNS rebinding sends the attacker's name; it is refused (421). Listening
///   beyond loopback without `--allow-host`, any Host is taken: the token guards that server.
/// - **Origin**: a request that changes something (any method but GET, HEAD and OPTIONS), or opens
///   a WebSocket, from a page of another origin is refused (403), unless `--allow-origin` names it.
/// - **Fetch metadata**: a browser's request from another site (`Sec-Fetch-Site: cross-site`) is
///   refused whatever its method, so that a page cannot make the server render previews through
///   `<img>` tags either; following a link to the server (a top-level navigation) is let through.
/// - **CORS**: only `--allow-origin` origins get `Access-Control-Allow-Origin`, and an answer to
///   their preflight; no one else's script can read an answer.
struct RequestOrigins: Sendable {
    /// Host names (lower case, no port) the server answers to; nil: any.
    let hosts: Set<String>?
    /// Origins (`http://name:port`, lower case) whose pages may change things and read answers.
    let origins: Set<String>

    init(configuration: ServiceConfiguration) {
        let loopback: Set<String> = ["localhost", "127.0.0.1", "::1", "[::1]"]
        let named = Set(configuration.allowedHosts.map { Self.hostName($0) })
        if ServiceConfiguration.isLoopback(configuration.host) || !named.isEmpty {
            hosts = loopback.union(named).union([Self.hostName(configuration.host)])
        } else {
            hosts = nil
        }
        origins = Set(configuration.allowedOrigins.map { Self.normalised(origin: $0) })
    }

    /// Refuses the request (a `Problem`) when its Host, Origin or fetch metadata say it comes
    /// from where it may not.
    func check(_ request: HTTPRequest) throws {
        // The first Host becomes the authority; any other stays among the fields. Two are refused
        // (RFC 9112 3.2): a proxy in front may route by one while this server checks the other.
        if !request.headerFields[values: Self.host].isEmpty {
            throw Problem.badRequest("the request has more than one Host header; a request names one server")
        }
        let authority = request.authority
        if let hosts, let authority, !hosts.contains(Self.hostName(authority)) {
            throw Problem(
                .misdirectedRequest,
                "this server does not answer to the name \(MessageTextShort.of(Self.hostName(authority))); start it with --allow-host NAME to add one"
            )
        }
        let origin = request.headerFields[.origin].map { Self.normalised(origin: $0) }
        if let origin, origins.contains(origin) { return }
        let site = request.headerFields[Self.fetchSite]?.lowercased()
        let navigation = request.headerFields[Self.fetchMode]?.lowercased() == "navigate"
        if site == "cross-site" && !(navigation && request.method == .get) {
            throw Problem(
                .forbidden, "requests from another site's pages are refused; start the server with --allow-origin ORIGIN to let one in")
        }
        // A WebSocket is not bound by CORS: a page of any origin could open one and push or watch.
        // Clients that are no web page may name their own URL, ws://host, as the origin; every
        // other origin is a page's or an extension's (http(s), "null", file://, chrome-extension://).
        let pageOrigin = origin.map { !($0.hasPrefix("ws://") || $0.hasPrefix("wss://")) } ?? false
        if Self.changesState(request.method) || (Self.isWebSocketUpgrade(request) && pageOrigin), let origin,
            !Self.isOwn(origin: origin, authority: authority)
        {
            throw Problem(
                .forbidden,
                "a \(request.method.rawValue) from the page of \(MessageTextShort.of(origin)) is refused: only the server's own page, or an origin given with --allow-origin, may change captures"
            )
        }
    }

    /// Whether `origin` is the server's own page: the Host the request names, over http, or over
    /// https when a proxy in front (nginx, Docs/deploy.md) ends TLS and passes the Host on.
    static func isOwn(origin: String, authority: String?) -> Bool {
        guard let authority else { return false }
        let own = normalised(origin: "http://\(authority)")
        let ownOverTLS = normalised(origin: "https://\(authority)")
        return origin == own || origin == ownOverTLS
    }

    /// The CORS headers an answer to an allowed origin carries.
    func corsHeaders(for request: Request) -> HTTPFields? {
        guard let origin = request.headers[.origin], origins.contains(Self.normalised(origin: origin)) else { return nil }
        return [.accessControlAllowOrigin: origin, .vary: "Origin"]
    }

    /// A CORS preflight (OPTIONS with Access-Control-Request-Method) from an allowed origin.
    func isPreflight(_ request: Request) -> Bool {
        request.method == .options && request.headers[.accessControlRequestMethod] != nil && corsHeaders(for: request) != nil
    }

    private static let host = HTTPTypes.HTTPField.Name("Host")!
    private static let fetchSite = HTTPTypes.HTTPField.Name("Sec-Fetch-Site")!
    private static let fetchMode = HTTPTypes.HTTPField.Name("Sec-Fetch-Mode")!

    static func isWebSocketUpgrade(_ request: HTTPRequest) -> Bool {
        request.headerFields[.upgrade]?.lowercased() == "websocket"
    }

    static func changesState(_ method: HTTPRequest.Method) -> Bool {
        method != .get && method != .head && method != .options
    }

    /// `Name:port`, `[::1]:port` or `name.` as the bare lower-case name.
    static func hostName(_ authority: String) -> String {
        var text = Substring(authority.lowercased())
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            return String(text[text.index(after: text.startIndex)..<close])
        }
        if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") { text = text[..<colon] }
        if text.hasSuffix(".") { text = text.dropLast() }
        return String(text)
    }

    /// An origin as browsers send it: lower case, no trailing slash, no default port.
    static func normalised(origin: String) -> String {
        var text = origin.lowercased()
        while text.hasSuffix("/") { text.removeLast() }
        if text.hasPrefix("http://") && text.hasSuffix(":80") { text.removeLast(3) }
        if text.hasPrefix("https://") && text.hasSuffix(":443") { text.removeLast(4) }
        return text
    }
}

/// `RequestOrigins` on every request, outside ProblemMiddleware so that every answer to an
/// allowed origin, problems included, carries the CORS headers. Its own refusals it answers
/// itself; an allowed origin's preflight is answered here.
struct OriginMiddleware<Context: RequestContext>: RouterMiddleware {
    let origins: RequestOrigins

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            try origins.check(request.head)
        } catch let problem as Problem {
            return try problem.response(from: request, context: context)
        }
        if origins.isPreflight(request), var headers = origins.corsHeaders(for: request) {
            headers[.accessControlAllowMethods] = "GET, HEAD, POST, PATCH, DELETE"
            headers[.accessControlAllowHeaders] = "authorization, content-type, if-none-match, range"
            headers[.accessControlMaxAge] = "600"
            return Response(status: .noContent, headers: headers)
        }
        var response = try await next(request, context)
        if let cors = origins.corsHeaders(for: request) {
            for field in cors { response.headers[field.name] = field.value }
        }
        return response
    }
}
