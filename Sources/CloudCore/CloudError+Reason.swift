extension CloudError {
    /// Why an error or a warning happened: text that may refer to options ("several frames: add
    /// \(switch: "fuse")"), which each door words as its own (`--fuse`, `fuse=true`), and to files
    /// ("using \(option: "intrinsics", file: PATH) instead of \(file: PATH)"), which each door
    /// names as its own (a path, an uploaded part).
    public struct Reason: Hashable, Sendable, ExpressibleByStringInterpolation {
        public enum Piece: Hashable, Sendable {
            case text(String)
            case option(Option)
            /// A file (or another subject) the reason names besides its own subject.
            case subject(Subject)
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
                case let .subject(named): return named.rendered(option: option)
                }
            }.joined()
        }

        /// The same reason with the files it names (as subjects, or as an option's value) renamed by
        /// `rename`: a door's own names for them, as `ClientPaths` renames a subject.
        public func renaming(_ rename: (Subject) -> Subject) -> Reason {
            Reason(
                pieces: pieces.map { piece in
                    switch piece {
                    case .text: return piece
                    case let .subject(named): return .subject(rename(named))
                    case var .option(given):
                        guard given.valueIsPath, let path = given.value else { return piece }
                        given.value = rename(.file(path)).text
                        return .option(given)
                    }
                })
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
            /// An option whose value is a file's path ("--intrinsics PATH").
            public mutating func appendInterpolation(option name: String, file path: String) {
                pieces.append(.option(Option(name, path, valueIsPath: true)))
            }
            public mutating func appendInterpolation(file path: String) { pieces.append(.subject(.file(path))) }
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
