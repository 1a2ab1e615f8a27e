/// The shared capture index could not be reached (PostgreSQL down, restarting, or out of
/// connections): a passing state, not the request's fault nor a bug, so it is answered 503 with
/// Retry-After (`Problem.from`) and the client tries again. `cause` is for the server's log only:
/// it may name hosts and ports that a client has no business seeing.
public struct IndexUnavailable: Error, CustomStringConvertible {
    public var cause: String
    /// Whether the statement had been sent when the connection failed: a write may then have
    /// committed without its answer arriving (`CaptureStore.commit` keeps the files for it).
    public var maybeApplied: Bool

    public init(cause: String, maybeApplied: Bool = false) {
        self.cause = cause
        self.maybeApplied = maybeApplied
    }

    public var description: String { "the capture index is unavailable: \(cause)" }
}
