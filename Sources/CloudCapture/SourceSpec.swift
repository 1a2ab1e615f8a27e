import CloudCore

/// A parsed `--source` string (grammar in DESIGN.md, "Source specs"). Parsing checks the spec's
/// shape; `open()` makes the source: the simulated camera, capture bundles, the datasets on disk
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

    public static let kinds = ["synthetic", "rgbd", "tum", "redwood", "pclgrabber", "bundle", "polycam", "photo", "stray", "record3d", "kinect", "openni2"]

    public init(parsing text: String) throws {
        func bad(_ problem: String) -> CloudError { .badInput("source '\(text)': \(problem)") }
        let colon = text.firstIndex(of: ":")
        let kind = text[..<(colon ?? text.endIndex)]
        let argument: Substring? = colon.map { text[text.index(after: $0)...] }
        func required(_ form: String) throws -> String {
            guard let argument, !argument.isEmpty else { throw bad("expected \(form)") }
            return String(argument)
        }
        switch kind {
        case "synthetic":
            self = .synthetic(try argument.map { try SyntheticSettings(parameters: $0, spec: text) } ?? SyntheticSettings())
        case "rgbd":
            let paths = try required("rgbd:COLOR,DEPTH").split(separator: ",", omittingEmptySubsequences: false)
            guard paths.count == 2, !paths[1].isEmpty else {
                throw bad("expected rgbd:COLOR,DEPTH (two image paths separated by a comma; rgbd:,DEPTH for depth alone)")
            }
            self = .rgbd(color: paths[0].isEmpty ? nil : String(paths[0]), depth: String(paths[1]))
        case "tum": self = .tum(directory: try required("tum:DIR"))
        case "redwood": self = .redwood(directory: try required("redwood:DIR"))
        case "pclgrabber": self = .pclGrabber(directory: try required("pclgrabber:DIR"))
        case "bundle": self = .bundle(directory: try required("bundle:DIR"))
        case "polycam": self = .polycam(directory: try required("polycam:DIR"))
        case "photo": self = .photo(path: try required("photo:FILE"))
        case "stray": self = .stray(directory: try required("stray:DIR"))
        case "record3d": self = .record3d(directory: try required("record3d:DIR"))
        case "kinect":
            guard let argument else {
                self = .kinect(index: 0)
                return
            }
            // libfreenect takes an Int32 index; bounding it here keeps absurd values from trapping later.
            guard let index = Int(argument), (0...255).contains(index) else {
                throw bad("the device index must be an integer in 0...255 (0 is the first camera)")
            }
            self = .kinect(index: index)
        case "openni2":
            self = .openNI2(argument == nil ? nil : try required("openni2:URI or openni2:FILE.oni"))
        default:
            throw bad("unknown source kind '\(kind)' (kinds: \(Self.kinds.joined(separator: ", ")))")
        }
    }

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
