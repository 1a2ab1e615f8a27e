import Foundation

/// Progress of a multi-frame capture on stderr: a bar redrawn in place when stderr is a terminal,
/// otherwise (logs, pipes, CI) one summary line at the end. Single-frame captures stay quiet.
struct Progress {
    let expected: Int?
    let quiet: Bool
    private let interactive = isatty(STDERR_FILENO) == 1
    private let start = DispatchTime.now().uptimeNanoseconds

    init(expected: Int?, quiet: Bool) {
        self.expected = expected
        self.quiet = quiet
    }

    private var seconds: Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }

    func advance(frames: Int, points: Int) {
        guard !quiet, interactive else { return }
        let rate = Double(frames) / max(seconds, 1e-9)
        var line = "\r\u{1B}[K"
        if let expected, expected > 0 {
            let width = 30
            let done = min(width, frames * width / expected)
            line += "[" + String(repeating: "#", count: done) + String(repeating: " ", count: width - done) + "] "
            line += "\(frames)/\(expected) frames"
        } else {
            line += "\(frames) frames"
        }
        line += String(format: ", %d points, %.1f frames/s", points, rate)
        if let expected, expected > frames, rate > 0 {
            line += String(format: ", %.0f s left", Double(expected - frames) / rate)
        }
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finish(frames: Int, points: Int) {
        guard !quiet else { return }
        let summary = "captured \(frames) frame\(frames == 1 ? "" : "s"), \(points) points in "
            + String(format: "%.2f s (%.1f frames/s)", seconds, Double(frames) / max(seconds, 1e-9))
        FileHandle.standardError.write(Data(((interactive ? "\r\u{1B}[K" : "") + "cloudgen: " + summary + "\n").utf8))
    }
}
