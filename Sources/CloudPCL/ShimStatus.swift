import CShims
import CloudCore

extension cg_status {
    /// The shim's one-line message.
    var text: String {
        withUnsafeBytes(of: message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }

    /// The CloudError for a failed shim call about `path`; nil when the call succeeded.
    func error(about path: String) -> CloudError? {
        switch code {
        case Int32(CG_OK): return nil
        case Int32(CG_BAD_INPUT): return .badInput("\(path): \(text)")
        default: return .io("\(path): \(text)")
        }
    }
}
