import Dispatch
import Foundation

/// Cores the renderer splits work across.
enum ProcessorCount {
    static let active = Swift.max(1, ProcessInfo.processInfo.activeProcessorCount)
}

/// Wraps a buffer whose disjoint parts concurrent iterations write; each caller guarantees that
/// no two iterations touch the same element.
struct UnsafeSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// Image passes split into one band of rows per core.
enum ParallelRows {
    static func run(_ rows: Int, _ body: (Range<Int>) -> Void) {
        let parts = Swift.max(1, Swift.min(ProcessorCount.active, rows / 64))
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            body((rows * part / parts)..<(rows * (part + 1) / parts))
        }
    }
}
