import CloudCore
import Foundation

/// Cores the renderer splits work across.
enum ProcessorCount {
    static let active = Swift.max(1, ProcessInfo.processInfo.activeProcessorCount)
}

/// Image passes split into one band of rows per core.
enum ParallelRows {
    static func run(_ rows: Int, _ body: (Range<Int>) -> Void) {
        let parts = Swift.max(1, Swift.min(ProcessorCount.active, rows / 64))
        Parallel.parts(parts) { part in
            body((rows * part / parts)..<(rows * (part + 1) / parts))
        }
    }
}

/// Passes over a cloud's points split into one range per core (of points, or of blocks of them),
/// each range reduced to a `Part` of its own (no shared state), then combined. With `combine` made
/// of min and max alone the result does not depend on how the points were split.
enum ParallelPoints {
    /// Below this many points one thread is faster than waking the others.
    static let threshold = 200_000

    /// `items` ranges over what `body` takes; `points` says whether the pass is large enough to split.
    static func reduce<Part>(_ items: Int, points: Int, _ body: (Range<Int>) -> Part, combine: (Part, Part) -> Part) -> Part {
        let parts = points >= threshold ? Swift.min(ProcessorCount.active, items) : 1
        guard parts > 1 else { return body(0..<items) }
        var results = [Part?](repeating: nil, count: parts)
        results.withUnsafeMutableBufferPointer { slots in
            Parallel.parts(parts) { part in
                slots[part] = body((items * part / parts)..<(items * (part + 1) / parts))
            }
        }
        // Every slot was filled by its iteration above.
        return results.dropFirst().reduce(results[0]!) { combine($0, $1!) }
    }
}
