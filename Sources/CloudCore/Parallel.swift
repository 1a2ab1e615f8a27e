import Dispatch

/// The project's parallel loops: every one of them (back-projection's bands of rows, LZF's pieces,
/// the simulated camera's rows, the renderer's bands) goes through `Parallel.parts`.
public enum Parallel {
    /// Runs `body(part)` for every part of `0..<count` across the cores and returns when all have.
    ///
    /// The parts share what `body` captures, mostly raw buffers of pixels or points, which the
    /// compiler cannot prove safe to share: each part may read anything but must write only the
    /// elements that are its own (its rows, its slot). That promise is made here, once, rather
    /// than at each loop.
    public static func parts(_ count: Int, _ body: (Int) -> Void) {
        withoutActuallyEscaping(body) { body in
            nonisolated(unsafe) let body = body
            DispatchQueue.concurrentPerform(iterations: count) { body($0) }
        }
    }
}
