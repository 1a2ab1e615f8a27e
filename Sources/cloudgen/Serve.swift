import ArgumentParser
import CloudCore
import CloudService
import Foundation

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the HTTP service: upload frames and archives, capture, list and download clouds (Docs/http.md).",
        discussion: """
            Prints the URL it listens on, then serves until SIGTERM or Ctrl-C, which finish the requests in flight first.
            Listening beyond this machine (--host other than 127.0.0.1) needs --token-file.
            Every option can also be set by an environment variable (CLOUDGEN_MAX_UPLOAD_MB for --max-upload-mb; \
            a repeatable option's values separated by commas) or a line of the --config file; \
            the command line wins over the environment, which wins over the file.
            """)

    // Read before parsing, by OptionSources; declared here for the help and so that the parser accepts it.
    @Option(
        help: ArgumentHelp(
            "A file of `key = value` lines, keys being these options' names without '--' (# starts a comment line).",
            valueName: "file"))
    var config: String?

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free one; the URL printed says which).")
    var port = 8080

    @Option(help: ArgumentHelp("Where the index and the captures are kept.", valueName: "dir"))
    var data = "cloudgen-data"

    @Option(
        help: ArgumentHelp(
            "A PostgreSQL capture index shared by several servers on one --data folder (default: SQLite in the data folder).",
            valueName: "postgresql://user[:password]@host[:port]/database"))
    var index: String?

    @Option(help: ArgumentHelp("Largest request body accepted, in MiB (bigger uploads get 413).", valueName: "mb"))
    var maxUploadMb = 512

    @Option(help: ArgumentHelp("Threads for decoding, back-projection, filters and rendering (default: one per core).", valueName: "n"))
    var workers: Int?

    @Option(help: ArgumentHelp("File whose first line is the bearer token every request must carry.", valueName: "file"))
    var tokenFile: String?

    @Option(help: ArgumentHelp("A folder whose datasets JSON capture requests may name (repeatable).", valueName: "dir"))
    var allowDir: [String] = []

    @Option(
        help: ArgumentHelp(
            "A host name the server answers to besides localhost and its address, e.g. behind a proxy (repeatable).", valueName: "name"))
    var allowHost: [String] = []

    @Option(
        help: ArgumentHelp(
            "A web origin whose pages may upload, change and read captures, e.g. https://scans.example (repeatable; CORS).",
            valueName: "origin"))
    var allowOrigin: [String] = []

    @Option(help: ArgumentHelp("Estimated CPU seconds one request's filters may take (more is refused with 422).", valueName: "s"))
    var maxRequestSeconds: Double = 120

    @Option(
        help: ArgumentHelp(
            "Memory one request may hold, in MiB: a fused cloud, a filter's working set (default: a quarter of the machine's, at most 4096).",
            valueName: "mb"))
    var maxRequestMemoryMb: Int?

    @Option(
        help: ArgumentHelp("Seconds a connection may wait before sending its next request's headers, or pause in a body.", valueName: "s"))
    var idleTimeout: Double = 15

    @Option(help: ArgumentHelp("Connections open at once; more wait until one closes.", valueName: "n"))
    var maxConnections = 256

    @Option(
        help: ArgumentHelp(
            "Disk space for derived files (other encodings, filtered exports, previews), in MiB; the least recently used go first.",
            valueName: "mb"))
    var derivedCacheMb = 1024

    @Option(
        help: ArgumentHelp(
            "When an uploaded frame's cloud is written: lazy keeps the uploaded inputs and makes the cloud on first download; eager writes it before answering.",
            valueName: "eager|lazy"))
    var storeClouds = "lazy"

    @Option(help: ArgumentHelp("Live streams open at once (POST /v1/streams beyond it gets 429).", valueName: "n"))
    var maxStreams = 8

    @Option(help: ArgumentHelp("Viewers of one stream at once; more are closed with code 1013.", valueName: "n"))
    var maxViewers = 32

    @Option(
        help: ArgumentHelp(
            "Disk space one stream's recording may fill, in MiB; later frames are not kept (default: a quarter of the data folder's free space at start).",
            valueName: "mb"))
    var maxRecordingMb: Int?

    /// Each value on its own (the host and token rule waits for run): OptionSources checks a
    /// config file's lines one by one through this, to name the line at fault.
    func validate() throws {
        do {
            try configuration(token: nil).validateValues()
        } catch let error as CloudError {
            throw ValidationError(error.message)
        }
    }

    private func configuration(token: String?) throws -> ServiceConfiguration {
        guard (1...1 << 20).contains(maxUploadMb) else {
            throw CloudError.badInput("--max-upload-mb \(maxUploadMb): needs 1...1048576")
        }
        var configuration = ServiceConfiguration(
            host: host, port: port, dataDirectory: data, maxUploadBytes: maxUploadMb << 20,
            workers: workers ?? ProcessInfo.processInfo.activeProcessorCount, token: token, allowedDirectories: allowDir)
        configuration.index = index
        configuration.allowedHosts = allowHost
        configuration.allowedOrigins = allowOrigin
        configuration.maxRequestSeconds = maxRequestSeconds
        if let maxRequestMemoryMb {
            guard (64...1 << 24).contains(maxRequestMemoryMb) else {
                throw CloudError.badInput("--max-request-memory-mb \(maxRequestMemoryMb): needs 64...16777216")
            }
            configuration.maxRequestMemoryBytes = maxRequestMemoryMb << 20
        }
        configuration.idleTimeoutSeconds = idleTimeout
        configuration.maxConnections = maxConnections
        guard (1...1 << 24).contains(derivedCacheMb) else {
            throw CloudError.badInput("--derived-cache-mb \(derivedCacheMb): needs 1...16777216")
        }
        configuration.derivedCacheBytes = derivedCacheMb << 20
        guard let storing = CloudStoring(rawValue: storeClouds) else {
            throw ValidationError("--store-clouds \(storeClouds): needs eager or lazy")
        }
        configuration.storeClouds = storing
        configuration.streams.maxStreams = maxStreams
        configuration.streams.maxViewers = maxViewers
        if let maxRecordingMb {
            guard (1...1 << 24).contains(maxRecordingMb) else {
                throw CloudError.badInput("--max-recording-mb \(maxRecordingMb): needs 1...16777216")
            }
            configuration.streams.maxRecordingBytes = maxRecordingMb << 20
        }
        return configuration
    }

    func run() async throws {
        let configuration = try configuration(token: try tokenFile.map(ServiceConfiguration.readToken))
        try await CloudServer.run(configuration) { url in
            print("cloudgen serve: listening on \(url)")
            fflush(nil)  // stdout, for a script waiting on the line
        }
    }
}
