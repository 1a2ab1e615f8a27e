import CloudCapture
import CloudCore
import CloudFiles
import CloudPCL
import CloudPipeline
import CloudService
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import NIOFoundationEssentialsCompat
import SharedTestData
import XCTest

/// A service on a fresh data folder, driven in process (HummingbirdTesting's router framework)
/// or live on an ephemeral port of 127.0.0.1.
struct ServiceHarness {
    let data: URL
    var configuration: ServiceConfiguration

    /// `nameSuffix` ends the data folder's name (a comma, a space, letters beyond ASCII).
    init(nameSuffix: String = "", configure: (inout ServiceConfiguration) -> Void = { _ in }) throws {
        data = FileManager.default.temporaryDirectory.appendingPathComponent("cloudgen-service-\(UUID().uuidString)\(nameSuffix)")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        configuration = ServiceConfiguration(port: 0, dataDirectory: data.path, maxUploadBytes: 64 << 20, workers: 2)
        configure(&configuration)
    }

    func remove() {
        try? FileManager.default.removeItem(at: data)
    }

    /// What the service logged at level error or above: a client's misbehaviour must not show up
    /// there (operators alert on it, and `Tools/schemathesis/run` fails on it).
    let errors = ErrorLog()

    var logger: Logger {
        let errors = errors
        var logger = Logger(label: "cloudgen-test") { label in
            MultiplexLogHandler([StreamLogHandler.standardError(label: label), errors])
        }
        logger.logLevel = .warning
        return logger
    }

    /// Runs `body` against the service. Every answer it gets is checked for the data folder's
    /// path: no answer may show where the server keeps its files.
    func test<Value>(_ setup: TestingSetup = .router, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Value)
        async throws -> Value
    {
        let app = try await CloudServer.application(configuration, logger: logger)
        let folder = data.path
        return try await app.test(setup) { client in try await body(PathCheckingClient(base: client, hidden: folder)) }
    }
}

/// A test client that fails the test when an answer's body or headers name `hidden`.
struct PathCheckingClient: TestClientProtocol {
    let base: any TestClientProtocol
    let hidden: String

    func executeRequest(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> TestResponse {
        let response = try await base.executeRequest(uri: uri, method: method, headers: headers, body: body)
        let text = String(decoding: response.body.readableBytesView, as: UTF8.self)
        XCTAssertFalse(text.contains(hidden), "\(method) \(uri) answered with the server's data path: \(text.prefix(500))")
        for field in response.headers {
            XCTAssertFalse(field.value.contains(hidden), "\(method) \(uri): header \(field.name) names the data path")
        }
        return response
    }

    var port: Int? { base.port }
}

/// multipart/form-data bodies, built the way browsers and curl send them.
struct MultipartBody {
    let boundary = "cloudgen-test-\(UUID().uuidString)"
    private(set) var bytes = Data()

    mutating func file(_ name: String, _ contents: Data, filename: String? = nil, type: String = "application/octet-stream") {
        bytes += Data(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename ?? name)\"\r\nContent-Type: \(type)\r\n\r\n"
                .utf8)
        bytes += contents
        bytes += Data("\r\n".utf8)
    }

    mutating func file(_ name: String, path: String) throws {
        file(name, try Data(contentsOf: URL(fileURLWithPath: path)), filename: (path as NSString).lastPathComponent)
    }

    mutating func field(_ name: String, _ value: String) {
        bytes += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
    }

    var body: ByteBuffer {
        ByteBuffer(bytes: bytes + Data("--\(boundary)--\r\n".utf8))
    }

    var headers: HTTPFields {
        [.contentType: "multipart/form-data; boundary=\(boundary)"]
    }

    /// The TUM frame of ../shared/data (640x480, depth 5000 units per metre) with Open3D's
    /// PrimeSense intrinsics: what a capture rig would push.
    static func tumFrame() throws -> MultipartBody {
        var body = MultipartBody()
        try body.file("depth", path: sharedData("open3d-rgbd/other_formats/TUM_depth.png"))
        try body.file("color", path: sharedData("open3d-rgbd/other_formats/TUM_color.png"))
        try body.file("intrinsics", path: sharedData("open3d-rgbd/camera_primesense.json"))
        body.field("depth_scale", "5000")
        return body
    }

    /// ../shared/data's five posed Redwood frames as an uploaded archive (the `bundle` part), made
    /// in `folder`: what a phone app's export would push.
    static func redwoodBundle(in folder: URL) throws -> MultipartBody {
        var body = MultipartBody()
        body.file("bundle", try redwoodArchive(in: folder), filename: "scan.tar")
        return body
    }
}

extension TestClientProtocol {
    /// Uploads `archive` and waits until its job is running (failing if it ends first); its id.
    func startJob(_ archive: MultipartBody, file: StaticString = #filePath, line: UInt = #line) async throws -> String {
        let accepted = try await execute(uri: "/v1/captures", method: .post, headers: archive.headers, body: archive.body)
        XCTAssertEqual(accepted.status, .accepted, String(buffer: accepted.body), file: file, line: line)
        let id = try XCTUnwrap(try accepted.json()["id"] as? String, file: file, line: line)
        for _ in 0..<600 {
            let state = try await execute(uri: "/v1/jobs/\(id)", method: .get).json()["state"] as? String
            if state == "running" { return id }
            XCTAssertEqual(state, "queued", "the job ended before it was seen running", file: file, line: line)
            try await Task.sleep(for: .milliseconds(100))
        }
        XCTFail("the job was still queued after 60 s", file: file, line: line)
        return id
    }

    /// The job's document once it succeeded or failed, read every quarter second for at most a
    /// minute (then whatever it last was).
    func endedJob(_ id: String) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(60)
        var state: [String: Any] = [:]
        repeat {
            state = try await execute(uri: "/v1/jobs/\(id)", method: .get).json()
            if ["succeeded", "failed"].contains(state["state"] as? String ?? "") { break }
            try await Task.sleep(for: .milliseconds(250))
        } while ContinuousClock.now < deadline
        return state
    }
}

extension MultipartBody {
    /// `redwoodBundle` with neighbour filters over the fused frames, `rounds` times: a job that
    /// runs a few seconds (about two per round on 2 cores), long enough to be seen running.
    static func slowRedwoodBundle(in folder: URL, rounds: Int) throws -> MultipartBody {
        var body = try redwoodBundle(in: folder)
        for _ in 0..<rounds { body.field("sor", "50,1") }
        return body
    }
}

/// A file of ../shared/data.
func sharedData(_ relative: String) throws -> String {
    try sharedDataDirectory().appendingPathComponent(relative).path
}

/// What the CLI's capture makes of the same files, through the same pipeline.
enum CLICapture {
    /// `capture --source rgbd:TUM_color.png,TUM_depth.png --ply F` as a cloud.
    static func tumFrame() throws -> PointCloud {
        try tum({ folder in (cloud: folder + "/reference.ply", depthImage: nil) }, read: { try CloudReader.read($0).cloud })
    }

    /// `capture ... --depth-image F` of the TUM frame, as the PNG's bytes.
    static func tumDepthImage() throws -> Data {
        try tum({ folder in (cloud: nil, depthImage: folder + "/depth.png") }, read: { try Data(contentsOf: URL(fileURLWithPath: $0)) })
    }

    /// Captures the TUM frame into a scratch folder and reads back the one file asked for.
    private static func tum<T>(_ files: (String) -> (cloud: String?, depthImage: String?), read: (String) throws -> T) throws -> T {
        let folder = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (cloud, depthImage) = files(folder.path)
        let spec =
            "rgbd:\(try sharedData("open3d-rgbd/other_formats/TUM_color.png")),\(try sharedData("open3d-rgbd/other_formats/TUM_depth.png"))"
        _ = try CapturePipeline(
            source: try SourceSpec(parsing: spec),
            sourceOptions: SourceOptions(intrinsicsPath: try sharedData("open3d-rgbd/camera_primesense.json"), depthUnitsPerMetre: 5000),
            frameLimit: 1, outputs: cloud.map { [($0, .ply(.binary))] } ?? [], filters: FilterPipeline(steps: [], organized: false),
            pictures: depthImage.map { PreviewOutputs(previewPath: nil, depthImagePath: $0, depthBlend: nil) },
            observer: SilentObserver()
        ).run()
        return try read(cloud ?? depthImage!)
    }
}

/// Every id a listing gives under `key` ("captures", "jobs") from the page `start` on, following
/// `next`, and how many pages were fetched (20 at the most, so that a `next` that never ends cannot hang a test).
func listedPages(_ client: any TestClientProtocol, _ start: String, key: String) async throws -> (ids: [String], pages: Int) {
    var url: String? = start
    var ids: [String] = []
    var pages = 0
    while let next = url, pages < 20 {
        let page = try await client.execute(uri: next, method: .get)
        XCTAssertEqual(page.status, .ok, String(buffer: page.body))
        let json = try page.json()
        ids += (json[key] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        url = json["next"] as? String
        pages += 1
    }
    return (ids, pages)
}

extension TestResponse {
    /// The body as a JSON object.
    func json(file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(buffer: body))
        return try XCTUnwrap(object as? [String: Any], "not a JSON object: \(String(buffer: body))", file: file, line: line)
    }
}

/// ../shared/data/open3d-rgbd (five posed Redwood frames) as a tar archive made by GNU tar.
func redwoodArchive(in folder: URL) throws -> Data {
    let archive = folder.appendingPathComponent("scan.tar")
    let tar = Process()
    tar.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    tar.arguments = [
        "tar", "-cf", archive.path, "-C", try sharedDataDirectory().path, "open3d-rgbd/color", "open3d-rgbd/depth",
        "open3d-rgbd/camera_primesense.json", "open3d-rgbd/trajectory.log"
    ]
    try tar.run()
    tar.waitUntilExit()
    XCTAssertEqual(tar.terminationStatus, 0)
    return try Data(contentsOf: archive)
}

/// Keeps the messages logged at level error or critical. A value, as a `LogHandler` must be:
/// every copy of a logger (each request's, with its own metadata) gets its own, and all of them
/// write to one locked list. (A class here had the requests' loggers set metadata on one shared
/// dictionary at once from several threads, and the test process crashed.)
struct ErrorLog: LogHandler {
    final class Lines: Sendable {
        private let lines = NIOLockedValueBox<[String]>([])
        func append(_ line: String) { lines.withLockedValue { $0.append(line) } }
        var all: [String] { lines.withLockedValue { $0 } }
    }

    let lines = Lines()
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .error

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        guard event.level >= .error else { return }
        lines.append("\(event.message) \(event.metadata ?? [:])")
    }

    var messages: [String] { lines.all }
}
