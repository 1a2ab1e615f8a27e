import CloudService
import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// One throwaway PostgreSQL cluster for the whole test run, started on first use (initdb and a
/// start take a few seconds: once, not per test) on a free loopback port, and stopped and removed
/// when the test process exits. Each test takes a fresh database of its own (`makeDatabase`).
/// PostgreSQL refuses to run as root, so as root the server runs as the `postgres` user, in a
/// folder that user owns. Without PostgreSQL installed (Tools/bootstrap installs it) the tests
/// that need it fail, naming what is missing: CI has it, so a skip would hide a broken setup.
final class TestPostgres: @unchecked Sendable {
    static let binaries = "/usr/lib/postgresql/15/bin"

    let folder: URL
    let port: Int
    private var data: URL { folder.appendingPathComponent("pg") }
    private let lock = NSLock()
    private var databases = 0

    private static let started = Result { try TestPostgres() }

    /// The run's cluster, started by the first caller.
    static func shared() throws -> TestPostgres {
        try started.get()
    }

    private init() throws {
        guard FileManager.default.isExecutableFile(atPath: "\(Self.binaries)/initdb") else {
            throw TestPostgresError("\(Self.binaries)/initdb is missing: install postgresql-15 (Tools/bootstrap does)")
        }
        folder = URL(fileURLWithPath: "/tmp/cloudgen-pg-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        port = try Self.freePort()
        if geteuid() == 0 { try Self.run("/bin/chown", ["postgres:postgres", folder.path]) }
        try Self.runAsServer("initdb", ["-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync", "-D", data.path])
        // The cluster goes with the test process, however the run ends short of a crash.
        Self.exitCleanup = { [folder, data] in
            try? Self.runAsServer("pg_ctl", ["-D", data.path, "stop", "-m", "immediate"])
            try? FileManager.default.removeItem(at: folder)
        }
        atexit { TestPostgres.exitCleanup?() }
        try start()
    }

    nonisolated(unsafe) private static var exitCleanup: (() -> Void)?

    /// Starts the cluster (again, after `stop`), waiting until it accepts connections.
    func start() throws {
        // fsync off: a test database need not survive a power cut, and syncing slows every commit.
        let options = "-p \(port) -k \(folder.path) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        try Self.runAsServer("pg_ctl", ["-D", data.path, "-l", folder.appendingPathComponent("log").path, "-w", "-o", options, "start"])
    }

    /// Stops the cluster at once, as a crash or a pulled cable would look to a client.
    func stop() throws {
        try Self.runAsServer("pg_ctl", ["-D", data.path, "-w", "stop", "-m", "immediate"])
    }

    /// A new empty database's address.
    func makeDatabase() throws -> PostgresIndexAddress {
        let name = lock.withLock {
            databases += 1
            return "cloudgen_test_\(databases)"
        }
        try Self.run("\(Self.binaries)/psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-q", "-c", "CREATE DATABASE \(name)"])
        return try PostgresIndexAddress(parsing: url(name))
    }

    func url(_ database: String) -> String {
        "postgresql://postgres@127.0.0.1:\(port)/\(database)?sslmode=disable"
    }

    /// The rows `sql` selects in `address`'s database, one line each, columns joined by `|`.
    func select(_ sql: String, in address: PostgresIndexAddress) throws -> [String] {
        let output = try Self.run(
            "\(Self.binaries)/psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-d", address.database, "-At", "-c", sql])
        return output.split(separator: "\n").map(String.init)
    }

    private static func runAsServer(_ program: String, _ arguments: [String]) throws {
        if geteuid() == 0 {
            try run("/usr/sbin/runuser", ["-u", "postgres", "--", "\(binaries)/\(program)"] + arguments)
        } else {
            try run("\(binaries)/\(program)", arguments)
        }
    }

    /// Runs `program`; its output, or an error with its output if it fails. Through the shell's
    /// `system`, not `Process`: `pg_ctl start` leaves a daemon behind, and Foundation's `Process`
    /// then never saw its child exit (waitUntilExit hung with the child a zombie). The output goes
    /// to a file, since the daemon inherits the descriptor and would keep a pipe open.
    @discardableResult
    private static func run(_ program: String, _ arguments: [String]) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cloudgen-pg-output-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        // psql's own settings of whoever runs the tests must not reach it.
        let command = (["env", "-i", "PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8", program] + arguments).map(quoted).joined(separator: " ")
        let status = system("\(command) >\(quoted(file.path)) 2>&1 </dev/null")
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw TestPostgresError("\(program) \(arguments.joined(separator: " ")) failed (status \(status)): \(text)")
        }
        return text
    }

    /// `text` as one shell word.
    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// A loopback port nothing listens on now.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestPostgresError("socket: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw TestPostgresError("bind: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

struct TestPostgresError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
