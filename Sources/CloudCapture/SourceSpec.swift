import CloudCore

/// A source as every layer hands it on: its kind's row of `SourceKind.all` and its arguments,
/// paths as paths. `--source` text is parsed into one once, where it is given (the CLI's flag, a
/// JSON body's `source`); a route that makes a source from its own files (an upload's images, an
/// unpacked archive, a stream's recording) builds one directly, so no path is ever split at a
/// comma it holds. `open()` makes the source through its row.
public struct SourceSpec: Equatable, Sendable, CustomStringConvertible {
    public let sourceKind: SourceKind
    public let arguments: SourceArguments
    /// The spec as its user wrote it (or, for one a route built, as they would have): what
    /// messages and a stream's description name.
    public let text: String

    public init(kind: SourceKind, arguments: SourceArguments, text: String? = nil) {
        self.sourceKind = kind
        self.arguments = arguments
        self.text = text ?? arguments.text(kind: kind.name)
    }

    /// `text` is `kind[:argument]` (the kinds in `SourceKind.all`).
    public init(parsing text: String) throws {
        func bad(_ problem: String) -> CloudError { .badInput("source '\(text)': \(problem)") }
        let colon = text.firstIndex(of: ":")
        let kind = text[..<(colon ?? text.endIndex)]
        guard let sourceKind = SourceKind.named(kind) else {
            throw bad("unknown source kind '\(kind)' (kinds: \(Self.kinds.joined(separator: ", ")))")
        }
        self.init(kind: sourceKind, arguments: try sourceKind.parse(colon.map { text[text.index(after: $0)...] }, bad), text: text)
    }

    /// The kinds' names, in `SourceKind.all`'s order.
    public static var kinds: [String] { SourceKind.all.map(\.name) }

    /// The kind as written in specs.
    public var kind: String { sourceKind.name }

    public var description: String { text }

    /// A USB camera's: its failures are the camera's (not attached, busy, gone), not the input's.
    public var isDevice: Bool { sourceKind.isDevice }

    /// The files and folders the source reads, which a server holds to its `--allow-dir`.
    public var inputPaths: [String] {
        switch arguments {
        case .settings, .device: return []
        case .folder(let path), .file(let path): return [path]
        case .images(let color, let depth): return [color, depth].compactMap { $0 }
        case .target(let target): return target.flatMap { $0.contains("/") || OpenNI2Source.isRecording($0) ? [$0] : nil } ?? []
        }
    }

    public static func == (a: SourceSpec, b: SourceSpec) -> Bool {
        a.kind == b.kind && a.arguments == b.arguments
    }

    public func open() throws -> DepthSource {
        try open(options: SourceOptions())
    }

    /// `options` carries `--intrinsics`, `--depth-scale`, `--depth-encoding`, `--min-confidence`, `--known-distance` and `--matte`; a flag the kind
    /// has no use for is refused.
    public func open(options: SourceOptions) throws -> DepthSource {
        try options.check(for: self)
        return try sourceKind.open(arguments, options)
    }
}

/// What follows a kind's colon, by its shape; a kind's row says which shape it takes.
public enum SourceArguments: Equatable, Sendable {
    /// The simulated camera's room, path and sensor.
    case settings(SyntheticSettings)
    /// A dataset or export folder.
    case folder(String)
    /// One file (a photo).
    case file(String)
    /// One image pair; no color (`rgbd:,DEPTH`) is depth alone, an uncolored cloud.
    case images(color: String?, depth: String)
    /// A camera by its index among those attached.
    case device(index: Int)
    /// A device URI or a recording; nil for the first device.
    case target(String?)

    func text(kind: String) -> String {
        switch self {
        case .settings(let settings): return settings.spec
        case .folder(let path), .file(let path): return "\(kind):\(path)"
        case .images(let color, let depth): return "\(kind):\(color ?? ""),\(depth)"
        case .device(let index): return "\(kind):\(index)"
        case .target(let target): return target.map { "\(kind):\($0)" } ?? kind
        }
    }
}

/// Each kind's spec built from its parts, as routes and tests name them.
extension SourceSpec {
    public static func synthetic(_ settings: SyntheticSettings) -> SourceSpec { make("synthetic", .settings(settings)) }
    public static func rgbd(color: String?, depth: String) -> SourceSpec { make("rgbd", .images(color: color, depth: depth)) }
    public static func tum(directory: String) -> SourceSpec { make("tum", .folder(directory)) }
    public static func redwood(directory: String) -> SourceSpec { make("redwood", .folder(directory)) }
    public static func pclGrabber(directory: String) -> SourceSpec { make("pclgrabber", .folder(directory)) }
    public static func bundle(directory: String) -> SourceSpec { make("bundle", .folder(directory)) }
    public static func polycam(directory: String) -> SourceSpec { make("polycam", .folder(directory)) }
    public static func photo(path: String) -> SourceSpec { make("photo", .file(path)) }
    public static func stray(directory: String) -> SourceSpec { make("stray", .folder(directory)) }
    public static func record3d(directory: String) -> SourceSpec { make("record3d", .folder(directory)) }
    public static func kinect(index: Int) -> SourceSpec { make("kinect", .device(index: index)) }
    public static func openNI2(_ target: String?) -> SourceSpec { make("openni2", .target(target)) }

    /// A folder kind's spec for `folder` (an unpacked archive's, a recording's).
    public static func folder(_ kind: SourceKind, _ folder: String) -> SourceSpec {
        SourceSpec(kind: kind, arguments: .folder(folder))
    }

    private static func make(_ name: String, _ arguments: SourceArguments) -> SourceSpec {
        SourceSpec(kind: SourceKind.named(name)!, arguments: arguments)
    }
}
