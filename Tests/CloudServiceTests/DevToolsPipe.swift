import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Headless chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
/// commands on its fd 3, answers on its fd 4, each message ended by a NUL), so that a test can
/// use the page as a person does: fill in fields, pick files, press buttons, read what it shows.
final class DevToolsPipe {
    private var pid: pid_t = 0
    private let commands: Int32
    private let answers: Int32
    private var buffered: [UInt8] = []
    private var nextID = 0
    private var session: String?

    init(chromium: String, profile: URL) throws {
        var toBrowser: [Int32] = [0, 0]
        var fromBrowser: [Int32] = [0, 0]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else { throw CocoaError(.fileWriteUnknown) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toBrowser[0], 3)
        posix_spawn_file_actions_adddup2(&actions, fromBrowser[1], 4)
        let devNull = Glibc.open("/dev/null", O_WRONLY)
        posix_spawn_file_actions_adddup2(&actions, devNull, 1)
        posix_spawn_file_actions_adddup2(&actions, devNull, 2)
        let arguments = [
            chromium, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-dev-shm-usage", "--no-first-run",
            "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--user-data-dir=\(profile.path)", "about:blank"
        ]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let status = posix_spawn(&pid, chromium, &actions, nil, &argv, environ)
        close(toBrowser[0])
        close(fromBrowser[1])
        close(devNull)
        commands = toBrowser[1]
        answers = fromBrowser[0]
        guard status == 0 else { throw CocoaError(.executableLoad) }
    }

    deinit {
        close(commands)
        close(answers)
        if pid > 0 {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }

    /// Opens `url` in a new tab and talks to that tab from then on.
    func open(_ url: String) throws {
        let target = try send("Target.createTarget", ["url": url], toBrowser: true)
        let attached = try send(
            "Target.attachToTarget", ["targetId": target["targetId"] as? String ?? "", "flatten": true], toBrowser: true)
        session = attached["sessionId"] as? String
    }

    /// The value of a JavaScript expression in the page (awaited if it is a promise).
    @discardableResult
    func evaluate(_ expression: String) throws -> Any? {
        let result = try send("Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
        if let exception = result["exceptionDetails"] { throw PageError("\(expression): \(exception)") }
        return (result["result"] as? [String: Any])?["value"]
    }

    /// Waits (checking every 100 ms, at most `attempts` times) until `condition` is true in the page.
    func wait(until condition: String, attempts: Int = 600) throws -> Bool {
        for _ in 0..<attempts {
            if try evaluate("Boolean(\(condition))") as? Bool == true { return true }
            usleep(100_000)
        }
        return false
    }

    /// Sets the files of the <input type=file> that `selector` finds, as a person picking them does.
    func setFiles(_ selector: String, _ paths: [String]) throws {
        let document = try send("DOM.getDocument", [:])
        let root = (document["root"] as? [String: Any])?["nodeId"] as? Int ?? 0
        let node = try send("DOM.querySelector", ["nodeId": root, "selector": selector])
        guard let nodeID = node["nodeId"] as? Int, nodeID != 0 else { throw PageError("no \(selector) on the page") }
        try send("DOM.setFileInputFiles", ["nodeId": nodeID, "files": paths])
    }

    /// Loads `url` in the tab opened last.
    func navigate(_ url: String) throws {
        try send("Page.navigate", ["url": url])
    }

    /// Lays the tab's pages out at `width` x `height` CSS pixels, one device pixel each.
    func setViewport(width: Int, height: Int) throws {
        try send("Emulation.setDeviceMetricsOverride", ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": false])
    }

    /// A PNG of what the page shows inside the rectangle (CSS pixels from the page's top left).
    func screenshot(x: Double, y: Double, width: Double, height: Double) throws -> Data {
        let shot = try send(
            "Page.captureScreenshot",
            ["format": "png", "clip": ["x": x, "y": y, "width": width, "height": height, "scale": 1]])
        guard let text = shot["data"] as? String, let png = Data(base64Encoded: text) else { throw PageError("no screenshot") }
        return png
    }

    /// A press of the left mouse button at `from`, moves in `steps` to `to`, and the release, as
    /// a person dragging does.
    func drag(from: (x: Double, y: Double), to: (x: Double, y: Double), steps: Int = 10) throws {
        try send(
            "Input.dispatchMouseEvent", ["type": "mousePressed", "x": from.x, "y": from.y, "button": "left", "buttons": 1, "clickCount": 1])
        for step in 1...steps {
            let t = Double(step) / Double(steps)
            try send(
                "Input.dispatchMouseEvent",
                ["type": "mouseMoved", "x": from.x + (to.x - from.x) * t, "y": from.y + (to.y - from.y) * t, "button": "left", "buttons": 1]
            )
        }
        try send(
            "Input.dispatchMouseEvent", ["type": "mouseReleased", "x": to.x, "y": to.y, "button": "left", "buttons": 0, "clickCount": 1])
    }

    @discardableResult
    private func send(_ method: String, _ parameters: [String: Any], toBrowser: Bool = false) throws -> [String: Any] {
        nextID += 1
        var message: [String: Any] = ["id": nextID, "method": method, "params": parameters]
        if !toBrowser, let session { message["sessionId"] = session }
        var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        guard bytes.withUnsafeBytes({ write(commands, $0.baseAddress, $0.count) }) == bytes.count else {
            throw PageError("chromium's pipe is closed")
        }
        // Events come in between; the answer carries the command's id.
        while true {
            let answer = try readMessage()
            guard answer["id"] as? Int == nextID else { continue }
            if let error = answer["error"] { throw PageError("\(method): \(error)") }
            return answer["result"] as? [String: Any] ?? [:]
        }
    }

    private func readMessage() throws -> [String: Any] {
        while true {
            if let end = buffered.firstIndex(of: 0) {
                let message = Array(buffered[..<end])
                buffered.removeSubrange(...end)
                return (try JSONSerialization.jsonObject(with: Data(message))) as? [String: Any] ?? [:]
            }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let count = read(answers, &chunk, chunk.count)
            guard count > 0 else { throw PageError("chromium closed its DevTools pipe") }
            buffered += chunk[..<count]
        }
    }
}

struct PageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
