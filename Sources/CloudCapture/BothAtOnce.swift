import CloudCore

/// Runs `first` and `second` at the same time, one on the calling thread and one on another core,
/// and returns both results, or the first error in argument order. For independent work of similar
/// size, such as decoding a frame's depth and color images: each decode runs on one core, so side
/// by side they take as long as the slower one.
func bothAtOnce<A, B>(_ first: () throws -> A, _ second: () throws -> B) throws -> (A, B) {
    // Each result is written by one part only and read once both parts have returned.
    var (a, b): (Result<A, Error>?, Result<B, Error>?)
    Parallel.parts(2) { index in
        if index == 0 { a = Result(catching: first) } else { b = Result(catching: second) }
    }
    return (try a!.get(), try b!.get())
}
