import CStatus
import CloudCore

/// The one mapping from the C parts' status (cstatus.h; CImageCodecs', CDevices' and the PCL shim's
/// statuses are this type) to the engine's error: bad input stays bad input (exit 2), any other
/// failure, a target's finer codes included, is the system's (exit 3).
extension cs_status {
    /// The C side's one-line message.
    public var text: String { String(fixedCString: message) }

    public var errorKind: CloudError.Kind { code == Int32(CS_BAD_INPUT) ? .badInput : .deviceOrIO }

    /// The error for a failed call about `subject`, its reason the C message after `doing`
    /// ("cannot write EXR: "); nil when the call succeeded.
    public func error(about subject: CloudError.Subject?, doing: String = "") -> CloudError? {
        code == Int32(CS_OK) ? nil : failure(about: subject, doing: doing)
    }

    /// The same for a call known to have failed.
    public func failure(about subject: CloudError.Subject?, doing: String = "") -> CloudError {
        CloudError(errorKind, subject: subject, CloudError.Reason(doing + text))
    }
}
