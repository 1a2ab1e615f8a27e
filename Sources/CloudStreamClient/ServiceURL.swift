import CloudCore
import Foundation

/// The service a stream is created on, as `--to` gives it: `http://HOST[:PORT][/PREFIX]`. Only
/// http:// (HTTPPost says why). The URLs the service answers with are resolved against it.
public struct ServiceURL: Sendable, Equatable {
    /// As given, to name the service in messages.
    public let text: String
    let host: String
    let port: Int
    /// The path before `/v1/...`, without a trailing slash ("" at the root).
    let basePath: String

    public init(_ text: String) throws {
        self.text = text
        func bad(_ problem: String) -> CloudError { .badInput("\(text): \(problem)") }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
            throw bad("not a URL; give the service's address, e.g. http://127.0.0.1:8080")
        }
        guard scheme == "http" else {
            throw bad("only http:// is supported (the stream's request goes over a plain socket), not \(scheme)://")
        }
        guard let host = url.host, !host.isEmpty else { throw bad("the URL names no host") }
        guard url.query == nil, url.fragment == nil, url.user == nil else {
            throw bad("give the service's address alone, without a query or user")
        }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        port = url.port ?? 80
        guard (1...65535).contains(port) else { throw bad("port \(port) is outside 1...65535") }
        var path = url.path
        while path.hasSuffix("/") { path.removeLast() }
        basePath = path
    }

    /// `Host:` as HTTP writes it: an IPv6 address in brackets.
    var hostHeader: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }

    /// `reference`, an absolute URL or one relative to the service, made absolute; `webSocket`
    /// turns http(s) into ws(s) for the stream's sockets.
    public func resolve(_ reference: String, webSocket: Bool) throws -> String {
        let base = URL(string: "http://\(hostHeader)\(basePath)/")
        guard let url = URL(string: reference, relativeTo: base)?.absoluteURL,
            var parts = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let scheme = parts.scheme?.lowercased(), ["http", "https", "ws", "wss"].contains(scheme)
        else {
            throw CloudError.badInput(
                "\(text): the service answered with \(MessageText.shortened(MessageText.escaped(reference), to: 60)), not a URL")
        }
        let secure = scheme == "https" || scheme == "wss"
        parts.scheme = webSocket ? (secure ? "wss" : "ws") : (secure ? "https" : "http")
        return parts.string ?? url.absoluteString
    }
}
