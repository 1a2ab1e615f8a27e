/// Something the user should know about work that still succeeds (a default assumed, frames left
/// out, a grid dropped): a subject and a reason, as a `CloudError` has, so that the CLI prints
/// `cloudgen: warning: SUBJECT: reason` with flags and the service names the subject as the
/// client knows it and the options as its fields, each door wording its own.
public struct CloudWarning: CloudMessage, Hashable, CustomStringConvertible, Sendable {
    public var subject: CloudError.Subject?
    public var reason: CloudError.Reason

    public init(_ subject: CloudError.Subject?, _ reason: CloudError.Reason) {
        self.subject = subject
        self.reason = reason
    }

    /// A warning about no file, source or option in particular ("no output file requested").
    public init(_ reason: CloudError.Reason) {
        self.init(nil, reason)
    }

    public var description: String { message }
}
