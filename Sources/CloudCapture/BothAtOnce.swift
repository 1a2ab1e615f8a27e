import Dispatch

/// Runs `first` and `second` at the same time, one on the calling thread and one on another core,
/// and returns both results, or the first error in argument order. For independent work of similar
/// size, such as decoding a frame's depth and color images: each decode runs on one core, so side
/// by side they take as long as the slower one.
func bothAtOnce<A, B>(_ first: () throws -> A, _ second: () throws -> B) throws -> (A, B) {
    let slots = ResultSlots<A, B>()
    withoutActuallyEscaping(first) { first in
        withoutActuallyEscaping(second) { second in
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 { slots.first = Result(catching: first) } else { slots.second = Result(catching: second) }
            }
        }
    }
    return (try slots.first!.get(), try slots.second!.get())
}

/// Each slot is written by one of `bothAtOnce`'s iterations only, and read after
/// concurrentPerform has returned, which orders those writes before the reads.
private final class ResultSlots<A, B>: @unchecked Sendable {
    var first: Result<A, Error>?
    var second: Result<B, Error>?
}
