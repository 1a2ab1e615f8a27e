extension CloudError {
    /// Why an error happened: text that may refer to options ("several frames: add
    /// \(switch: "fuse")"), which each door words as its own (`--fuse`, `fuse=true`).
    public struct Reason: Equatable, Sendable, ExpressibleByStringInterpolation {
        public enum Piece: Equatable, Sendable {
            case text(String)
            case option(Option)
        }

        public var pieces: [Piece]

        public init(_ text: String) { pieces = [.text(text)] }
        public init(pieces: [Piece]) { self.pieces = pieces }
        public init(stringLiteral value: String) { self.init(value) }
        public init(stringInterpolation: Interpolation) { pieces = stringInterpolation.pieces }

        /// The text, each option worded by `option`.
        public func rendered(option: (Option) -> String) -> String {
            pieces.map { piece in
                switch piece {
                case let .text(text): return text
                case let .option(given): return option(given)
                }
            }.joined()
        }

        public static func + (lhs: Reason, rhs: Reason) -> Reason { Reason(pieces: lhs.pieces + rhs.pieces) }

        /// The CLI's wording, options as flags.
        public var text: String { rendered(option: \.flag) }

        public struct Interpolation: StringInterpolationProtocol {
            var pieces: [Piece] = []

            public init(literalCapacity: Int, interpolationCount: Int) {}

            public mutating func appendLiteral(_ literal: String) { append(literal) }
            public mutating func appendInterpolation<T>(_ value: T) { append(String(describing: value)) }
            public mutating func appendInterpolation(option name: String, _ value: String? = nil) {
                pieces.append(.option(Option(name, value)))
            }
            public mutating func appendInterpolation(switch name: String) { pieces.append(.option(.switch(name))) }
            public mutating func appendInterpolation(_ option: Option) { pieces.append(.option(option)) }

            private mutating func append(_ text: String) {
                if case let .text(last)? = pieces.last {
                    pieces[pieces.count - 1] = .text(last + text)
                } else if !text.isEmpty {
                    pieces.append(.text(text))
                }
            }
        }
    }
}
