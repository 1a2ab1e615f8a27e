import Foundation
import XCTest

/// Every curl example in Docs/http.md, parsed out of the page's code blocks, runs as written
/// (through bash, pipes and all) against a live `cloudgen serve` on a free loopback port, with
/// the files it names taken from ../shared/data, and gets the status the page implies.
final class HTTPDocExamplesTests: XCTestCase {
    /// Examples that cannot run here, by a piece of their text, and why.
    private static let notRun = [
        "http://HOST:8080": "needs a server started with --host 0.0.0.0 and a token file; "
            + "CloudServiceTests' authentication tests cover the token on a loopback server"
    ]

    func testEveryCurlExampleInHTTPMdRunsWithTheStatusThePageImplies() throws {
        // This file is Tests/cloudgenTests/ in the checkout.
        let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Docs/http.md")
        let examples = Self.curlExamples(try String(contentsOf: page, encoding: .utf8))
        XCTAssertGreaterThanOrEqual(examples.count, 16, "the page's examples were not found: \(examples)")
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let work = dir.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        // The files the examples name, under the names they use.
        for (name, source) in [
            "TUM_depth.png": "open3d-rgbd/other_formats/TUM_depth.png",
            "TUM_color.png": "open3d-rgbd/other_formats/TUM_color.png",
            "camera_primesense.json": "open3d-rgbd/camera_primesense.json",
            "iphonex-portrait-depth.jpg": "phone/iphonex-portrait-depth.jpg"
        ] {
            try FileManager.default.copyItem(atPath: sharedData(source), toPath: work.appendingPathComponent(name).path)
        }
        try Self.redwoodZip(to: work.appendingPathComponent("scan.zip"))

        let server = try ServeProcess(data: dir.appendingPathComponent("data"))
        // The capture the DELETE example removes, so that the others keep theirs.
        let spare = try ServeProcess.curl([
            "-F", "depth=@\(work.path)/TUM_depth.png", "-F", "intrinsics=@\(work.path)/camera_primesense.json",
            "-F", "depth_scale=5000", "\(server.url)/v1/captures"
        ])
        XCTAssertEqual(spare.status, 201)
        var ids = ["spare": try XCTUnwrap(ServeProcess.json(spare.body)["id"] as? String)]

        for example in examples {
            if let reason = Self.notRun.first(where: { example.contains($0.key) })?.value {
                print("Docs/http.md example not run: \(example)\n  because it \(reason)")
                continue
            }
            let target =
                example.contains("/v1/jobs/ID")
                ? "job"
                : example.contains("/measure")
                    ? "room"
                    : example.contains("-X DELETE") ? "spare" : "frame"
            if example.contains("ID"), ids[target] == nil {
                XCTFail("no \(target) id yet for: \(example) (the examples that make one come earlier on the page)")
                continue
            }
            let command = example.replacingOccurrences(of: "http://127.0.0.1:8080", with: server.url)
                .replacingOccurrences(of: "/ID", with: "/\(ids[target] ?? "ID")")
                .replacingOccurrences(of: "after=ID", with: "after=\(ids["frame"] ?? "")")
                // The status goes to stderr, so that pipes and -o see the body as the page shows it.
                .replacingOccurrences(of: "curl ", with: "curl -sS -w '%{stderr}%{http_code}\\n' ")
            let run = try Self.bash(command, in: work)
            XCTAssertEqual(run.exit, 0, "\(example)\n\(run.stderr)")
            let status = Int(run.stderr.split(separator: "\n").last.map(String.init) ?? "") ?? 0
            XCTAssertEqual(status, Self.expectedStatus(example), "\(example)\n\(run.stdout.prefix(500))")
            if example.contains("-F bundle=") {
                ids["job"] = ServeProcess.json(Data(run.stdout.utf8))["id"] as? String
            } else if example.contains("synthetic:"), example.contains("/v1/captures") {
                ids["room"] = ServeProcess.json(Data(run.stdout.utf8))["id"] as? String
                let warnings = ServeProcess.json(Data(run.stdout.utf8))["warnings"] as? [String]
                XCTAssertEqual(warnings, [], "the page's simulated capture gives what it asks for: \(warnings ?? [])")
            } else if example.contains("-F depth="), ids["frame"] == nil {
                ids["frame"] = ServeProcess.json(Data(run.stdout.utf8))["id"] as? String
            }
        }
        XCTAssertNotNil(ids["job"])
        XCTAssertNotNil(ids["room"])
    }

    /// What the page says each example answers: 201 for a capture or a stream, 202 for an archive,
    /// 204 for a delete, 206 for a byte range, 200 for the rest.
    private static func expectedStatus(_ example: String) -> Int {
        if example.contains("-X DELETE") { return 204 }
        if example.contains("-F bundle=") { return 202 }
        if example.contains("/v1/captures"), example.contains(" -F ") || example.contains(" -d ") {
            return example.contains("-X PATCH") ? 200 : 201
        }
        if example.contains("/v1/streams"), example.contains(" -d ") { return 201 }
        if example.contains(" -r ") { return 206 }
        return 200
    }

    /// The `curl` commands of the page's code blocks, continuation lines joined.
    static func curlExamples(_ markdown: String) -> [String] {
        var examples: [String] = []
        var inCode = false
        var pending: String?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                inCode.toggle()
                continue
            }
            guard inCode else { continue }
            let text = line.trimmingCharacters(in: .whitespaces)
            if var command = pending {
                command += " " + text
                pending = nil
                if command.hasSuffix("\\") { pending = String(command.dropLast()) } else { examples.append(command) }
            } else if text.hasPrefix("curl ") {
                if text.hasSuffix("\\") { pending = String(text.dropLast()) } else { examples.append(text) }
            }
        }
        return examples
    }

    /// The five posed Redwood frames of ../shared/data as a .zip, made by Python's zipfile.
    private static func redwoodZip(to path: URL) throws {
        let script = """
            import os, sys, zipfile
            root = sys.argv[1]
            with zipfile.ZipFile(sys.argv[2], "w") as z:
                for sub in ["color", "depth"]:
                    for name in sorted(os.listdir(os.path.join(root, sub))):
                        z.write(os.path.join(root, sub, name), "scan/" + sub + "/" + name)
                for name in ["camera_primesense.json", "trajectory.log"]:
                    z.write(os.path.join(root, name), "scan/" + name)
            """
        let run = try bash("python3 -c '\(script)' \(sharedData("open3d-rgbd")) \(path.path)", in: path.deletingLastPathComponent())
        XCTAssertEqual(run.exit, 0, run.stderr)
    }

    private static func bash(_ command: String, in folder: URL) throws -> (exit: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "set -o pipefail; " + command]
        process.currentDirectoryURL = folder
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }
}
