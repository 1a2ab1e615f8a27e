import CloudCore
import Foundation
import PostgresNIO

/// Where `serve --index postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=MODE]` keeps
/// the shared capture index: libpq's URL form, so that the address an operator already has for
/// `psql` works here. Only what the index needs is accepted; anything else is refused rather
/// than ignored (a misspelt `sslmode` must not quietly connect in the clear).
public struct PostgresIndexAddress: Sendable, CustomStringConvertible {
    public enum TLSMode: String, Sendable, CaseIterable {
        /// libpq's default: TLS when the server offers it.
        case prefer
        case require
        case disable
    }

    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var tls: TLSMode

    /// `text` as an index address; a bad one is `badInput` naming the part at fault, never the password.
    public init(parsing text: String) throws {
        func refuse(_ why: String) -> CloudError {
            CloudError.badInput(
                "--index \(Self.redacted(text)): \(why) (expected postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require])"
            )
        }
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased() else { throw refuse("not a URL") }
        guard scheme == "postgresql" || scheme == "postgres" else { throw refuse("only postgresql:// addresses are supported") }
        guard let host = url.host, !host.isEmpty else { throw refuse("no host") }
        guard let user = url.user, !user.isEmpty else { throw refuse("no user") }
        let database = String(url.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else { throw refuse("no database (the path names it)") }
        if let port = url.port, !(1...65535).contains(port) { throw refuse("port \(port) is not in 1...65535") }
        var tls = TLSMode.prefer
        for item in url.queryItems ?? [] {
            guard item.name == "sslmode" else { throw refuse("unknown parameter \(item.name); only sslmode is understood") }
            guard let mode = item.value.flatMap(TLSMode.init(rawValue:)) else {
                throw refuse("sslmode \(item.value ?? ""): needs disable, prefer or require")
            }
            tls = mode
        }
        // URLComponents keeps brackets around an IPv6 literal; the connection wants the address alone.
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = url.port ?? 5432
        self.user = url.percentEncodedUser?.removingPercentEncoding ?? user
        self.password = url.percentEncodedPassword?.removingPercentEncoding
        self.database = database.removingPercentEncoding ?? database
        self.tls = tls
    }

    /// The address without its password: what logs and messages show.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "postgresql://\(user)@\(shownHost):\(port)/\(database)"
    }

    var clientConfiguration: PostgresClient.Configuration {
        let tlsConfiguration: PostgresClient.Configuration.TLS =
            switch tls {
            case .disable: .disable
            case .prefer: .prefer(.makeClientConfiguration())
            case .require: .require(.makeClientConfiguration())
            }
        // As libpq does: a password left out of the URL (which `ps` shows) may come from PGPASSWORD.
        return PostgresClient.Configuration(
            host: host, port: port, username: user, password: password ?? ProcessInfo.processInfo.environment["PGPASSWORD"],
            database: database, tls: tlsConfiguration)
    }

    /// `text` with anything between `://user:` and `@` blanked, for a message about a bad address.
    private static func redacted(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].lastIndex(of: "@") else {
            return MessageTextShort.of(text)
        }
        let credentials = text[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return MessageTextShort.of(text) }
        return MessageTextShort.of(String(text[..<colon]) + ":***" + String(text[at...]))
    }
}
