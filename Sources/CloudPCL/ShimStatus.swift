import CShims
import CloudCore

extension cg_status {
    /// The shim's one-line message.
    var text: String { String(fixedCString: message) }

    /// The CloudError for a failed shim call about `path`; nil when the call succeeded.
    func error(about path: String) -> CloudError? {
        switch code {
        case Int32(CG_OK): return nil
        case Int32(CG_BAD_INPUT): return .badInput("\(path): \(text)")
        default: return .io("\(path): \(text)")
        }
    }

    /// The CloudError for a failed filter step, about the option that asked for it.
    func error(about option: CloudError.Option) -> CloudError? {
        switch code {
        case Int32(CG_OK): return nil
        case Int32(CG_BAD_INPUT): return .badInput(.option(option), CloudError.Reason(text))
        default: return .io(.option(option), CloudError.Reason(text))
        }
    }
}
