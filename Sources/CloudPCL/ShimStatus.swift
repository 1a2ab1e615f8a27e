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
}
