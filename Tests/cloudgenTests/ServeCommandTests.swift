import CloudCore
import CloudFiles
import Foundation
import XCTest

/// `cloudgen serve` as a process: killed with -9 in the middle of uploads it loses no capture it
/// confirmed and shows no half one; SIGTERM lets the request in flight finish.
final class ServeCommandTests: XCTestCase {
    private static func frameArguments() -> [String] {
        [
            "-F", "depth=@\(sharedData("open3d-rgbd/other_formats/TUM_depth.png"))",
            "-F", "color=@\(sharedData("open3d-rgbd/other_formats/TUM_color.png"))",
            "-F", "intrinsics=@\(sharedData("open3d-rgbd/camera_primesense.json"))", "-F", "depth_scale=5000"
        ]
    }

    func testKill9DuringUploadsLosesNoConfirmedCaptureAndShowsNoHalfOne() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let data = dir.appendingPathComponent("data")
        let confirmed = Confirmed()
        for round in 0..<3 {
            let server = try ServeProcess(data: data)
            let before = confirmed.ids.count
            let group = DispatchGroup()
            // Four clients upload until the server dies under them.
            let url = server.url
            for _ in 0..<4 {
                DispatchQueue.global().async(group: group) {
                    while let (status, body) = try? ServeProcess.curl(Self.frameArguments() + ["\(url)/v1/captures"]), status != 0 {
                        if status == 201, let id = ServeProcess.json(body)["id"] as? String { confirmed.add(id) }
                    }
                }
            }
            // Once a capture of this round is in, at a different moment each round: mid-upload,
            // mid-capture, mid-commit, whatever the clients are doing then.
            let deadline = Date().addingTimeInterval(90)
            while confirmed.ids.count == before && Date() < deadline { usleep(10_000) }
            usleep(UInt32(150_000 + round * 350_000))
            server.signal(SIGKILL)
            XCTAssertNotNil(server.exitStatus(within: 10))
            XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
        }
        XCTAssertGreaterThanOrEqual(confirmed.ids.count, 3, "too few uploads finished before the kills")

        let server = try ServeProcess(data: data)
        // Every page: uploads that keep their inputs only (--store-clouds lazy) confirm over 100.
        var listed: [String] = []
        var page: String? = "/v1/captures?limit=100"
        while let path = page {
            let (status, body) = try ServeProcess.curl(["\(server.url)\(path)"])
            XCTAssertEqual(status, 200)
            let answer = ServeProcess.json(body)
            listed += (answer["captures"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            page = answer["next"] as? String
        }
        XCTAssertTrue(Set(confirmed.ids).isSubset(of: Set(listed)), "confirmed \(confirmed.ids), listed \(listed)")
        // Every listed capture is whole: its cloud reads to the points its document states.
        for id in listed {
            let document = ServeProcess.json(try ServeProcess.curl(["\(server.url)/v1/captures/\(id)"]).body)
            let (plyStatus, ply) = try ServeProcess.curl(["\(server.url)/v1/captures/\(id)/cloud.ply"])
            XCTAssertEqual(plyStatus, 200, id)
            let cloud = try ply.withUnsafeBytes { try CloudReader.read(bytes: $0, path: "\(id).ply") }
            XCTAssertEqual(cloud.cloud.count, document["points"] as? Int, id)
            XCTAssertEqual(try ServeProcess.curl(["-o", "/dev/null", "\(server.url)/v1/captures/\(id)/depth.png"]).status, 200, id)
        }
        // What the kills left half-done was swept at start-up.
        XCTAssertEqual(filesIn(data.appendingPathComponent("staging")), [])
        XCTAssertEqual(filesIn(data.appendingPathComponent("uploads")), [])
        XCTAssertEqual(Set(filesIn(data.appendingPathComponent("captures"))), Set(listed))
    }

    func testServeRefusesToExposeItselfWithoutATokenAndBadTokenFiles() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let short = dir.appendingPathComponent("short.token")
        try Data("abc\n".utf8).write(to: short)
        for (arguments, mentions) in [
            (["--host", "0.0.0.0"], "--token-file"), (["--token-file", short.path], "at least 16"),
            (["--token-file", dir.appendingPathComponent("none").path], "none"), (["--port", "70000"], "--port"),
            (["--max-upload-mb", "0"], "--max-upload-mb"),
            (["--index", "mysql://db/x"], "only postgresql://"), (["--index", "postgresql://u@db:99999/x"], "port 99999"),
            (["--index", "postgresql://u:hunter2@db/"], "no database"),
            (["--index", "postgresql://u@db/x?sslmode=off"], "sslmode off")
        ] {
            let result = try CLI.run(["serve", "--data", dir.appendingPathComponent("data").path] + arguments, in: dir)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderrLines.count, 1, result.stderr)
            XCTAssertTrue(result.stderr.contains(mentions), "\(arguments): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("hunter2"), "a refused address's password is not shown: \(result.stderr)")
        }
    }

    func testSIGTERMFinishesTheRequestInFlightThenExits() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try ServeProcess(data: dir.appendingPathComponent("data"))
        let answer = Answer()
        let done = DispatchSemaphore(value: 0)
        let url = server.url
        DispatchQueue.global().async {
            // A fused capture of several frames: seconds of work in a debug build.
            let result = try? ServeProcess.curl([
                "-H", "Content-Type: application/json",
                "-d", "{\"source\": \"synthetic:seed=4,depth=640x480\", \"frames\": 8, \"fuse\": true}",
                "\(url)/v1/captures"
            ])
            answer.set(result)
            done.signal()
        }
        // The signal goes while the capture runs, by the server's own account, and before the
        // client has its answer: the request is in flight, whatever the machine's speed.
        XCTAssertTrue(try server.waitUntilCapturing(within: 120), "the server never reported the capture running")
        XCTAssertTrue(answer.isEmpty, "the capture was answered before SIGTERM was sent")
        server.signal(SIGTERM)
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success)
        let result = answer.result
        XCTAssertEqual(result?.status, 201, result.map { String(decoding: $0.body, as: UTF8.self) } ?? "no answer")
        XCTAssertEqual(server.exitStatus(within: 30), 0)
    }
}

/// Ids of the uploads answered 201, from several client threads.
private final class Confirmed: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []

    var ids: [String] {
        lock.lock()
        defer { lock.unlock() }
        return list
    }

    func add(_ id: String) {
        lock.lock()
        list.append(id)
        lock.unlock()
    }
}

/// curl's answer, set on the client's thread and read on the test's.
private final class Answer: @unchecked Sendable {
    private let lock = NSLock()
    private var answered = false
    private var stored: (status: Int, body: Data)?

    var isEmpty: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !answered
    }

    var result: (status: Int, body: Data)? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    func set(_ result: (status: Int, body: Data)?) {
        lock.lock()
        answered = true
        stored = result
        lock.unlock()
    }
}
