/// The one error type the engine throws: what kind of failure it is, what it is about (its
/// subject) and why (its reason), kept apart so that each door words them its own way. The CLI
/// prints `message`, "SUBJECT: reason" with options as flags (`--voxel 0: ...`); the service
/// names the subject in problem+json's `field` or `part` and words options as its fields
/// (`voxel=0`), without rewriting the CLI's text.
public struct CloudError: Error, CloudMessage, Equatable, CustomStringConvertible, Sendable {
    public enum Kind: Equatable, Sendable {
        /// The request or an input file is wrong; the subject names the file or option.
        case badInput
        /// A camera, the file system or a library failed while doing something valid.
        case deviceOrIO
        /// Valid work refused because it would need more memory than the process (or a server's
        /// request) may use. The user can change the input or the limit, so it exits as bad input.
        case budget
    }

    public var kind: Kind
    public var subject: Subject?
    public var reason: Reason

    public init(_ kind: Kind, subject: Subject? = nil, _ reason: Reason) {
        self.kind = kind
        self.subject = subject
        self.reason = reason
    }

    /// An error whose message is not yet split into subject and reason: the whole text is its reason.
    public init(_ kind: Kind, _ message: String) {
        self.init(kind, subject: nil, Reason(message))
    }

    public static func badInput(_ message: String) -> CloudError { CloudError(.badInput, message) }
    public static func io(_ message: String) -> CloudError { CloudError(.deviceOrIO, message) }
    public static func badInput(_ reason: Reason) -> CloudError { CloudError(.badInput, subject: nil, reason) }
    public static func badInput(_ subject: Subject, _ reason: Reason) -> CloudError { CloudError(.badInput, subject: subject, reason) }
    public static func io(_ subject: Subject, _ reason: Reason) -> CloudError { CloudError(.deviceOrIO, subject: subject, reason) }

    /// Docs/cli.md: bad usage or bad input exits 2 (a budget refusal too: the input asks for too
    /// much), a device or I/O failure 3.
    public var exitStatus: Int32 { kind == .deviceOrIO ? 3 : 2 }

    public var description: String { message }

    /// The same error about another subject: a door's own name for the file (StagedDirectory's
    /// destination for its hidden staging folder).
    public func about(_ subject: Subject?) -> CloudError {
        CloudError(kind, subject: subject, reason)
    }
}
