import CloudCapture
import CloudCore
import CloudPipeline
import Foundation

/// How `capture` watches its pipeline: progress of a multi-frame capture on stderr (a bar redrawn
/// in place when stderr is a terminal, otherwise — logs, pipes, CI — one summary line at the end;
/// single-frame captures stay quiet), warnings held by Console, Ctrl-C as the request to stop.
final class Progress: CaptureObserver {
    let quiet: Bool
    private let interactive = isatty(STDERR_FILENO) == 1
    private let start = DispatchTime.now().uptimeNanoseconds

    init(quiet: Bool) {
        self.quiet = quiet
    }

    private var seconds: Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }

    func warning(_ warning: CloudWarning) {
        Console.warning(warning)
    }

    var stopRequested: Bool { CaptureInterrupt.requested }

    func advanced(frames: Int, expected: Int?, points: Int) {
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

    func finished(frames: Int, points: Int, seconds: Double) {
        guard !quiet else { return }
        let summary =
            "captured \(frames) frame\(frames == 1 ? "" : "s"), \(points) points in "
            + String(format: "%.2f s (%.1f frames/s)", seconds, Double(frames) / max(seconds, 1e-9))
        if interactive { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        // Held until the command has succeeded, so that a failure after it prints its line alone.
        Console.note(summary)
    }
}
