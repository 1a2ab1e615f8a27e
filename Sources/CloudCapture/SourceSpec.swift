import CloudCore

/// A parsed `--source` string (grammar in DESIGN.md, "Source specs"; the kinds in `SourceKind.all`).
/// Parsing checks the spec's shape; `open()` makes the source: the simulated camera, capture bundles, the datasets on disk
/// (rgbd, tum, redwood, pclgrabber), phone apps' exports (polycam, stray, record3d), iPhone photos with depth (photo) and USB cameras (kinect through libfreenect, openni2).
public enum SourceSpec: Equatable, Sendable {
    case synthetic(SyntheticSettings)
    /// An empty COLOR (`rgbd:,DEPTH`): depth alone, an uncolored cloud.
    case rgbd(color: String?, depth: String)
    case tum(directory: String)
    case redwood(directory: String)
    case pclGrabber(directory: String)
    case bundle(directory: String)
    case polycam(directory: String)
    case photo(path: String)
    case stray(directory: String)
    case record3d(directory: String)
    case kinect(index: Int)
    /// A device URI or an .oni recording; nil for the first device.
    case openNI2(String?)

    /// The kinds' names, in `SourceKind.all`'s order.
    public static var kinds: [String] { SourceKind.all.map(\.name) }

    public init(parsing text: String) throws {
        func bad(_ problem: String) -> CloudError { .badInput("source '\(text)': \(problem)") }
        let colon = text.firstIndex(of: ":")
        let kind = text[..<(colon ?? text.endIndex)]
        guard let sourceKind = SourceKind.named(kind) else {
            throw bad("unknown source kind '\(kind)' (kinds: \(Self.kinds.joined(separator: ", ")))")
        }
        self = try sourceKind.parse(colon.map { text[text.index(after: $0)...] }, bad)
    }

    /// This spec's row of the table. Every case has one (SourceKindTests).
    public var sourceKind: SourceKind { SourceKind.named(kind)! }

    /// The kind as written in specs.
    public var kind: String {
        switch self {
        case .synthetic: return "synthetic"
        case .rgbd: return "rgbd"
        case .tum: return "tum"
        case .redwood: return "redwood"
        case .pclGrabber: return "pclgrabber"
        case .bundle: return "bundle"
        case .polycam: return "polycam"
        case .photo: return "photo"
        case .stray: return "stray"
        case .record3d: return "record3d"
        case .kinect: return "kinect"
        case .openNI2: return "openni2"
        }
    }

    public func open() throws -> DepthSource {
        try open(options: SourceOptions())
    }

    /// `options` carries `--intrinsics`, `--depth-scale`, `--depth-encoding`, `--min-confidence`, `--known-distance` and `--matte`; a flag the kind
    /// has no use for is refused.
    public func open(options: SourceOptions) throws -> DepthSource {
        try options.check(for: self)
        switch self {
        case .synthetic(let settings):
            return try SyntheticCamera(settings: settings)
        case .bundle(let directory):
            return try BundleSource(directory: directory)
        case .polycam(let directory):
            return try PolycamSource(directory: directory, options: options)
        case .photo(let path):
            return try PhotoSource(path: path, options: options)
        case .stray(let directory):
            return try StraySource(directory: directory, options: options)
        case .record3d(let directory):
            return try Record3DSource(directory: directory)
        case .rgbd(let color, let depth):
            return try RGBDImageSource(colorPath: color, depthPath: depth, options: options)
        case .tum(let directory):
            return try TUMSource(directory: directory, options: options)
        case .redwood(let directory):
            return try RedwoodSource(directory: directory, options: options)
        case .pclGrabber(let directory):
            return try PCLGrabberSource(directory: directory, options: options)
        case .kinect(let index):
            return try KinectSource(index: index)
        case .openNI2(let target):
            return try OpenNI2Source(target: target)
        }
    }
}
