import ArgumentParser
import CloudCore
import SharedTestData
import XCTest

@testable import cloudgen

/// `serve --config FILE` and `CLOUDGEN_*` variables (OptionSources): what each line and variable
/// sets, which source wins, and the one line a bad file or variable gets.
final class OptionSourcesTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try makeScratchDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    private func configFile(_ text: String) throws -> String {
        let url = dir.appendingPathComponent("serve.conf")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// Serve as main would parse it from `arguments` after "serve".
    private func serve(_ arguments: [String], environment: [String: String] = [:]) throws -> Serve {
        try Serve.parse(OptionSources.merged(arguments, for: Serve.self, environment: environment))
    }

    func testEveryServeOptionIsAKeyWithItsKind() {
        let catalog = DeclaredOptions(Serve.self)
        for key in ["host", "port", "data", "max-upload-mb", "workers", "token-file", "max-request-seconds", "idle-timeout", "max-viewers"]
        {
            XCTAssertEqual(catalog.options[key], .valued(repeating: false), key)
        }
        for key in ["allow-dir", "allow-host", "allow-origin"] {
            XCTAssertEqual(catalog.options[key], .valued(repeating: true), key)
        }
        XCTAssertNil(catalog.options["help"])
    }

    /// A file written on Windows: every line is read, so that no key after the first is lost
    /// (the token-file among them, which left the server open to anyone).
    func testCRLFLinesAreReadOneByOne() throws {
        let token = dir.appendingPathComponent("token")
        try Data("0123456789abcdef0123\r\n".utf8).write(to: token)
        let path = try configFile("allow-host = scans.example\r\ntoken-file = \(token.path)\r\n\r\n# a comment\r\nport = 9001\r\n")
        let command = try serve(["--config", path])
        XCTAssertEqual(command.allowHost, ["scans.example"])
        XCTAssertEqual(command.tokenFile, token.path)
        XCTAssertEqual(command.port, 9001)
    }

    /// A misspelt variable sets nothing: it is named at start (a config file's unknown key is refused).
    func testCLOUDGENVariablesThatSetNoOptionAreNamed() {
        let environment = ["CLOUDGEN_TOKEN_FIEL": "/etc/cloudgen/token", "CLOUDGEN_PORT": "9000", "CLOUDGEN_CONFIG": "/x", "HOME": "/root"]
        XCTAssertEqual(OptionSources.unknownVariables(in: environment, for: Serve.self), ["CLOUDGEN_TOKEN_FIEL"])
    }

    func testFileLinesSetOptionsAndSkipCommentsAndBlankLines() throws {
        let path = try configFile(
            """
            # the service on this machine
              port = 9000

            data=/var/lib/cloudgen
            allow-dir = /srv/a
            allow-dir = /srv/b c
            max-request-seconds = 30.5
            """)
        let command = try serve(["--config", path])
        XCTAssertEqual(command.port, 9000)
        XCTAssertEqual(command.data, "/var/lib/cloudgen")
        XCTAssertEqual(command.allowDir, ["/srv/a", "/srv/b c"])
        XCTAssertEqual(command.maxRequestSeconds, 30.5)
        XCTAssertEqual(command.host, "127.0.0.1", "a key the file leaves out keeps its default")
    }

    func testFlagWinsOverEnvironmentWhichWinsOverFile() throws {
        let path = try configFile("port = 9000\nhost = 127.0.0.2\ndata = /from/file\nallow-host = file.example\n")
        let environment = [
            "CLOUDGEN_PORT": "9100", "CLOUDGEN_HOST": "127.0.0.3", "CLOUDGEN_ALLOW_HOST": "a.example,b.example",
            "CLOUDGEN_CONFIG": "/not/read/when/the/flag/names/one"
        ]
        let command = try serve(["--port=9200", "--config", path], environment: environment)
        XCTAssertEqual(command.port, 9200)
        XCTAssertEqual(command.host, "127.0.0.3")
        XCTAssertEqual(command.data, "/from/file")
        // A repeatable option from a higher source replaces the lower one's values.
        XCTAssertEqual(command.allowHost, ["a.example", "b.example"])
        let flagged = try serve(["--allow-host", "flag.example", "--config", path], environment: environment)
        XCTAssertEqual(flagged.allowHost, ["flag.example"])
    }

    func testTheConfigFileCanComeFromTheEnvironment() throws {
        let path = try configFile("max-viewers = 3\n")
        XCTAssertEqual(try serve([], environment: ["CLOUDGEN_CONFIG": path]).maxViewers, 3)
        XCTAssertEqual(try serve([]).maxViewers, 32)
    }

    func testBadLinesAreNamedWithFileAndLine() throws {
        for (text, line, detail) in [
            ("# fine\nbogus = 1\n", 2, "unknown key 'bogus'"),
            ("workers = 2\nport = abc\n", 2, "--port"),
            ("\n\nport = abc\n", 3, "'abc' is invalid"),
            ("port = 70000\n", 1, "needs 0...65535"),
            ("max-upload-mb = 0\n", 1, "--max-upload-mb 0"),
            ("allow-origin = scans.example\n", 1, "an origin"),
            ("port 8080\n", 1, "key = value"),
            ("data =\n", 1, "no value"),
            ("port = 80\nport = 81\n", 2, "first on line 1"),
            ("config = other.conf\n", 1, "cannot name another")
        ] {
            let path = try configFile(text)
            assertCloudError(.badInput, naming: "\(path):\(line): ", containing: detail) {
                try OptionSources.merged(["--config", path], for: Serve.self, environment: [:])
            }
        }
    }

    /// `serve --help` in a unit's environment: its config file not written yet, or with a bad
    /// line, still gives the usage text.
    func testHelpIsNotHeldUpByTheOtherSources() throws {
        let bad = try configFile("port = abc\n")
        let absent = dir.appendingPathComponent("absent.conf").path
        for environment in [["CLOUDGEN_CONFIG": absent], ["CLOUDGEN_PORT": "none"], [:]] {
            for arguments in [["--help"], ["-h"], ["--config", bad, "--help"], ["--port", "1", "-help"]] {
                XCTAssertEqual(try OptionSources.merged(arguments, for: Serve.self, environment: environment), arguments)
            }
        }
        // After "--" it is an argument, not a request for help: the other sources are read.
        assertCloudError(.badInput, naming: "CLOUDGEN_PORT=none") {
            try OptionSources.merged(["--", "--help"], for: Serve.self, environment: ["CLOUDGEN_PORT": "none"])
        }
    }

    func testAMissingFileIsBadInputNamingIt() {
        let path = dir.appendingPathComponent("absent.conf").path
        assertCloudError(.badInput, naming: path, containing: "no such file") {
            try OptionSources.merged(["--config", path], for: Serve.self, environment: [:])
        }
    }

    func testAFolderForAFileIsBadInputNamingIt() {
        // Not a permission (the tests may run as root, who reads anything): a file that cannot be read all the same.
        assertCloudError(.badInput, naming: dir.path) {
            try OptionSources.merged(["--config", dir.path], for: Serve.self, environment: [:])
        }
    }

    func testABadVariableIsNamed() {
        assertCloudError(.badInput, naming: "CLOUDGEN_WORKERS=none", containing: "invalid") {
            try OptionSources.merged([], for: Serve.self, environment: ["CLOUDGEN_WORKERS": "none"])
        }
        assertCloudError(.badInput, naming: "CLOUDGEN_IDLE_TIMEOUT=0", containing: "needs 1...3600") {
            try OptionSources.merged([], for: Serve.self, environment: ["CLOUDGEN_IDLE_TIMEOUT": "0"])
        }
    }

    func testTheHostAndTokenRuleWaitsForAllSources() throws {
        // 0.0.0.0 alone would be refused, but not as a bad line: the token may come from elsewhere.
        let path = try configFile("host = 0.0.0.0\n")
        XCTAssertEqual(try serve(["--config", path, "--token-file", "/etc/token"]).host, "0.0.0.0")
    }

    func testBareFlagsTakeTrueOrFalse() throws {
        let path = try configFile("verbose = true\n")
        XCTAssertTrue(try Flagged.parse(OptionSources.merged(["--config", path], for: Flagged.self, environment: [:])).verbose)
        XCTAssertFalse(
            try Flagged.parse(OptionSources.merged(["--config", path], for: Flagged.self, environment: ["CLOUDGEN_VERBOSE": "false"]))
                .verbose)
        let bad = try configFile("verbose = yes\n")
        assertCloudError(.badInput, naming: "\(bad):1: ", containing: "true or false") {
            try OptionSources.merged(["--config", bad], for: Flagged.self, environment: [:])
        }
    }

    func testServeRefusesABadConfigFileWithExitTwoAndOneLine() throws {
        let path = try configFile("port = 8080\nworkers = many\n")
        let result = try CLI.run(["serve", "--config", path], in: dir)
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertEqual(result.stderrLines.count, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("\(path):2: "), result.stderr)
    }

    func testServeAnswersToAHostNamedInItsConfigFile() throws {
        let path = try configFile("allow-host = scans.example\n")
        let server = try ServeProcess(data: dir.appendingPathComponent("data"), arguments: ["--config", path])
        XCTAssertEqual(try ServeProcess.curl(["-H", "Host: scans.example", "\(server.url)/healthz"]).status, 200)
        XCTAssertEqual(try ServeProcess.curl(["-H", "Host: other.example", "\(server.url)/healthz"]).status, 421)
    }
}

/// A command with a bare flag: the layer is not Serve's alone.
private struct Flagged: ParsableCommand {
    @Option var config: String?
    @Flag var verbose = false
}
