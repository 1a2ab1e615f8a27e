/// The one error type the engine throws. Its kind decides the CLI's exit status (DESIGN.md):
/// bad usage or bad input exits 2, a device or I/O failure exits 3.
public struct CloudError: Error, Equatable, CustomStringConvertible, Sendable {
    public enum Kind: Equatable, Sendable {
        /// The request or an input file is wrong; the message names the file and the problem.
        case badInput
        /// A camera, the file system or a library failed while doing something valid.
        case deviceOrIO
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public static func badInput(_ message: String) -> CloudError { CloudError(.badInput, message) }
    public static func io(_ message: String) -> CloudError { CloudError(.deviceOrIO, message) }

    public var exitStatus: Int32 { kind == .badInput ? 2 : 3 }
    public var description: String { message }
}
