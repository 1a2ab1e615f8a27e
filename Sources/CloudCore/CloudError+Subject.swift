extension CloudError {
    /// What an error or a warning is about, which a door may name in its own way: a file the CLI
    /// names by its path and the service by its upload part, an option the CLI names as a flag and
    /// the service as a field.
    public enum Subject: Hashable, Sendable {
        /// A file or folder, by the path it was opened with.
        case file(String)
        /// A source, by its spec as given ("synthetic:depth=640x480", "tum:DIR").
        case source(String)
        /// An uploaded part, by its name (the service's own subject for an uploaded file), and
        /// where in it when the error is about a place inside the file (": depth XMP").
        case part(String, within: String = "")
        /// An option with the value given.
        case option(Option)

        public static func option(_ name: String, _ value: String? = nil) -> Subject { .option(Option(name, value)) }

        /// The same file (or a source reading it) named from `name` instead of `root`, when it is
        /// `root` or inside it ("ROOT/a/b" -> "NAME/a/b", "tum:ROOT" -> "tum:NAME"); nil otherwise.
        public func moved(from root: String, to name: String) -> Subject? {
            func move(_ path: String) -> String? {
                if path == root { return name }
                guard path.hasPrefix(root + "/") else { return nil }
                return name + path.dropFirst(root.count)
            }
            switch self {
            case let .file(path): return move(path).map(Subject.file)
            case let .source(spec):
                guard let colon = spec.firstIndex(of: ":"), let path = move(String(spec[spec.index(after: colon)...])) else { return nil }
                return .source(spec[...colon] + path)
            case .part, .option: return nil
            }
        }

        /// The CLI's wording: the path, the spec, the part, the flag.
        public var text: String { rendered(option: \.flag) }

        func rendered(option: (Option) -> String) -> String {
            switch self {
            case let .file(path): return path
            case let .source(spec): return spec
            case let .part(name, within): return name + within
            case let .option(given): return option(given)
            }
        }
    }

    /// An option of a capture or filter, named as the CLI's long flag without its dashes
    /// ("depth-scale"), with its value when one is meant. A switch (`--fuse`) has no value of its
    /// own; referring to it means turning it on.
    public struct Option: Hashable, Sendable {
        public var name: String
        public var value: String?
        public var isSwitch: Bool
        /// The value is a file's path (`--intrinsics PATH`), which a door may name its own way.
        public var valueIsPath: Bool
        /// The CLI flag that carries this option as an entry, `--ENTRY NAME=VALUE`, where it has no
        /// flag of its own (a filter without one is `--filter median=3`).
        public var entry: String?

        public init(_ name: String, _ value: String? = nil, isSwitch: Bool = false, valueIsPath: Bool = false) {
            self.name = name
            self.value = value
            self.isSwitch = isSwitch
            self.valueIsPath = valueIsPath
        }

        public static func `switch`(_ name: String) -> Option { Option(name, isSwitch: true) }

        /// The CLI's wording: "--voxel 0", "--fuse", "--filter median=3".
        public var flag: String {
            if let entry { return "--\(entry) " + (value.map { "\(name)=\($0)" } ?? name) }
            return value.map { "--\(name) \($0)" } ?? "--\(name)"
        }
    }
}
