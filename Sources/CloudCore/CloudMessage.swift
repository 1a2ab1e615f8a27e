/// What an error or a warning says: what it is about (its subject) and why (its reason), kept
/// apart so that each door words them its own way. The CLI prints `message`, "SUBJECT: reason"
/// with options as flags (`--voxel 0: ...`); the service names the subject as the client knows it
/// and words options as its fields (`voxel=0`), without rewriting the CLI's text.
public protocol CloudMessage {
    var subject: CloudError.Subject? { get }
    var reason: CloudError.Reason { get }
}

extension CloudMessage {
    /// The CLI's line (without "cloudgen: " or "warning: "): "SUBJECT: reason", options worded as flags.
    public var message: String { rendered(option: \.flag) }

    /// "SUBJECT: reason" with every option, the subject's and those the reason refers to, worded by `option`.
    public func rendered(option: (CloudError.Option) -> String) -> String {
        rendered(subject: subject.map { $0.rendered(option: option) }, option: option)
    }

    /// "SUBJECT: reason" with the subject already worded by the caller (a door's name for a file).
    public func rendered(subject: String?, option: (CloudError.Option) -> String) -> String {
        let reason = reason.rendered(option: option)
        return subject.map { "\($0): \(reason)" } ?? reason
    }
}
