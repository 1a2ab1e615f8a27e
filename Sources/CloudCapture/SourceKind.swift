import CloudCore

/// One kind of source, as every door presents it: its name in specs, the form of its argument, a
/// line of help, the source options it takes, whether it is a USB camera, for the kinds a folder
/// can hold how to tell such a folder, how its argument parses and how it opens. `SourceKind.all`
/// is the one table: the spec parser, `SourceSpec.open`, `capture --help`, the options check, the
/// service's archive detection, its `--allow-dir` check and its OpenAPI document read it, and a
/// test holds Docs/cli.md to it. A new source is a folder of its own and a row here.
public struct SourceKind: Sendable {
    /// The options beside a spec that only some kinds use (`SourceOptions`), by their CLI names.
    public enum Option: String, CaseIterable, Sendable {
        case intrinsics
        case depthScale = "depth-scale"
        case depthEncoding = "depth-encoding"
        case minConfidence = "min-confidence"
        case knownDistance = "known-distance"
        case matte
    }

    /// What an unpacked folder of this kind holds, to recognise one without being told.
    public struct Layout: Sendable {
        /// The folder's own description in messages: "a TUM sequence (rgb.txt, depth.txt)".
        public var description: String
        /// Whether a folder whose entries are these is one.
        var matches: @Sendable (Set<String>) -> Bool
    }

    public let name: String
    /// The spec as help shows it: `tum:DIR`, `kinect[:INDEX]`.
    public let form: String
    public let summary: String
    public let options: Set<Option>
    /// Set for the kinds that read a folder which can be uploaded as an archive.
    public let layout: Layout?
    /// A USB camera (its failures are the device's, exit 3), not files.
    public let isDevice: Bool
    /// The spec's argument (after the colon; nil without one) to its arguments, or an error from `bad`.
    let parse: @Sendable (_ argument: Substring?, _ bad: (String) -> CloudError) throws -> SourceArguments
    /// The source, from arguments of the shape `parse` makes (a route's own are built so).
    let open: @Sendable (SourceArguments, SourceOptions) throws -> DepthSource

    init(
        name: String, form: String, summary: String, options: Set<Option>, layout: Layout?, isDevice: Bool = false,
        parse: @escaping @Sendable (Substring?, (String) -> CloudError) throws -> SourceArguments,
        open: @escaping @Sendable (SourceArguments, SourceOptions) throws -> DepthSource
    ) {
        self.name = name
        self.form = form
        self.summary = summary
        self.options = options
        self.layout = layout
        self.isDevice = isDevice
        self.parse = parse
        self.open = open
    }

    /// A row whose argument is a folder (or, `file`, one file) that must be given.
    init(
        name: String, form: String, summary: String, options: Set<Option>, layout: Layout?, file: Bool = false,
        open: @escaping @Sendable (String, SourceOptions) throws -> DepthSource
    ) {
        self.init(
            name: name, form: form, summary: summary, options: options, layout: layout,
            parse: { argument, bad in
                guard let argument, !argument.isEmpty else { throw bad("expected \(form)") }
                return file ? .file(String(argument)) : .folder(String(argument))
            },
            open: { arguments, options in
                switch arguments {
                case .folder(let path), .file(let path): return try open(path, options)
                default: throw CloudError.badInput("source \(name): takes \(form)")
                }
            })
    }

    public static func named(_ name: some StringProtocol) -> SourceKind? {
        all.first { $0.name == name }
    }

    /// The kinds that take `option`, in the table's order.
    public static func taking(_ option: Option) -> [SourceKind] {
        all.filter { $0.options.contains(option) }
    }

    /// The kind of an unpacked folder with these entries; nil when none matches. The layouts
    /// exclude each other (each needs an entry the others lack: a Record3D export's depth/ comes
    /// with metadata.json, Redwood's with color/), so the table's order does not matter.
    public static func recognise(folderEntries entries: Set<String>) -> SourceKind? {
        all.first { $0.layout?.matches(entries) == true }
    }

    public static let all: [SourceKind] = [
        SourceKind(
            name: "synthetic", form: "synthetic[:key=value,...]", summary: "the built-in simulated camera in a procedural room",
            options: [], layout: nil,
            parse: { argument, _ in
                .settings(try argument.map { try SyntheticSettings(parameters: $0, spec: "synthetic:\($0)") } ?? SyntheticSettings())
            },
            open: { arguments, _ in
                guard case .settings(let settings) = arguments else { throw CloudError.badInput("source synthetic: takes settings") }
                return try SyntheticCamera(settings: settings)
            }),
        SourceKind(
            name: "rgbd", form: "rgbd:COLOR,DEPTH", summary: "one image pair (with --intrinsics, --depth-scale, --depth-encoding)",
            options: [.intrinsics, .depthScale, .depthEncoding], layout: nil,
            parse: { argument, bad in try imagePair(argument, bad) },
            open: { arguments, options in
                guard case .images(let color, let depth) = arguments else { throw CloudError.badInput("source rgbd: takes COLOR,DEPTH") }
                return try RGBDImageSource(colorPath: color, depthPath: depth, options: options)
            }),
        SourceKind(
            name: "tum", form: "tum:DIR", summary: "a TUM RGB-D sequence, posed by groundtruth.txt",
            options: [.intrinsics, .depthScale],
            layout: Layout(description: "a TUM sequence (rgb.txt, depth.txt)") { $0.contains("rgb.txt") && $0.contains("depth.txt") }
        ) { try TUMSource(directory: $0, options: $1) },
        SourceKind(
            name: "redwood", form: "redwood:DIR", summary: "an Open3D/Redwood folder, posed by trajectory.log",
            options: [.intrinsics, .depthScale],
            layout: Layout(description: "a Redwood folder (color/, depth/)") { $0.contains("color") && $0.contains("depth") }
        ) { try RedwoodSource(directory: $0, options: $1) },
        SourceKind(
            name: "pclgrabber", form: "pclgrabber:DIR", summary: "PCL image-grabber recordings (frame_*.xml)",
            options: [.intrinsics, .depthScale],
            layout: Layout(description: "PCL grabber frames (*.xml, *_depth.*)") { entries in
                entries.contains { $0.hasSuffix(".xml") } && entries.contains { $0.contains("_depth.") }
            }
        ) { try PCLGrabberSource(directory: $0, options: $1) },
        SourceKind(
            name: "bundle", form: "bundle:DIR", summary: "a capture bundle (phone capture format, or written with --bundle)",
            options: [], layout: Layout(description: "a capture bundle (manifest.json)") { $0.contains("manifest.json") }
        ) { directory, _ in try BundleSource(directory: directory) },
        SourceKind(
            name: "polycam", form: "polycam:DIR", summary: "a Polycam raw-data export (keyframes/; --min-confidence)",
            options: [.minConfidence],
            layout: Layout(description: "a Polycam raw-data export (keyframes/)") { $0.contains("keyframes") }
        ) { try PolycamSource(directory: $0, options: $1) },
        SourceKind(
            name: "photo", form: "photo:FILE", summary: "a portrait photo with depth, HEIC or JPEG (--known-distance, --matte)",
            options: [.knownDistance, .matte], layout: nil, file: true
        ) { try PhotoSource(path: $0, options: $1) },
        SourceKind(
            name: "stray", form: "stray:DIR", summary: "a Stray Scanner export (rgb.mp4, depth/, odometry.csv; --min-confidence)",
            options: [.minConfidence],
            layout: Layout(description: "a Stray Scanner export (rgb.mp4, odometry.csv)") {
                $0.contains("rgb.mp4") && $0.contains("odometry.csv")
            }
        ) { try StraySource(directory: $0, options: $1) },
        SourceKind(
            name: "record3d", form: "record3d:DIR", summary: "a Record3D \"EXR + JPG\" export (metadata.json, rgb/, depth/; not .r3d)",
            options: [],
            layout: Layout(description: "a Record3D EXR + JPG export (metadata.json, rgb/, depth/)") {
                $0.contains("metadata.json") && $0.contains("rgb") && $0.contains("depth")
            }
        ) { directory, _ in try Record3DSource(directory: directory) },
        SourceKind(
            name: "kinect", form: "kinect[:INDEX]", summary: "Kinect v1 through libfreenect", options: [], layout: nil, isDevice: true,
            parse: { argument, bad in
                guard let argument else { return .device(index: 0) }
                // libfreenect takes an Int32 index; bounding it here keeps absurd values from trapping later.
                guard let index = Int(argument), (0...255).contains(index) else {
                    throw bad("the device index must be an integer in 0...255 (0 is the first camera)")
                }
                return .device(index: index)
            },
            open: { arguments, _ in
                guard case .device(let index) = arguments else { throw CloudError.badInput("source kinect: takes INDEX") }
                return try KinectSource(index: index)
            }),
        SourceKind(
            name: "openni2", form: "openni2[:URI|FILE.oni]", summary: "an OpenNI2 camera (Xtion, Carmine) or recording",
            options: [], layout: nil, isDevice: true,
            parse: { argument, bad in
                guard let argument else { return .target(nil) }
                guard !argument.isEmpty else { throw bad("expected openni2:URI or openni2:FILE.oni") }
                return .target(String(argument))
            },
            open: { arguments, _ in
                guard case .target(let target) = arguments else { throw CloudError.badInput("source openni2: takes URI or FILE.oni") }
                return try OpenNI2Source(target: target)
            })
    ]

    /// `COLOR,DEPTH`, either of which may hold commas of its own: split at the one comma where it
    /// is unambiguous, else at the only comma whose two sides name existing files (COLOR may be
    /// empty: depth alone).
    private static func imagePair(_ argument: Substring?, _ bad: (String) -> CloudError) throws -> SourceArguments {
        let form = "expected rgbd:COLOR,DEPTH"
        guard let argument, !argument.isEmpty else { throw bad(form) }
        let commas = argument.indices.filter { argument[$0] == "," }
        func pair(at comma: Substring.Index) -> (color: String?, depth: String) {
            let color = argument[..<comma]
            return (color.isEmpty ? nil : String(color), String(argument[argument.index(after: comma)...]))
        }
        let candidates: [Substring.Index]
        if commas.count == 1 {
            candidates = commas
        } else {
            candidates = commas.filter { comma in
                let (color, depth) = pair(at: comma)
                return DatasetFiles.isFile(depth) && (color.map(DatasetFiles.isFile) ?? true)
            }
        }
        guard candidates.count == 1, let comma = candidates.first, !pair(at: comma).depth.isEmpty else {
            if commas.count > 1 {
                throw bad(
                    candidates.isEmpty
                        ? "\(form): no comma splits it into two existing image files (a path may hold commas when both files exist)"
                        : "\(form): more than one comma splits it into two existing image files; rename one so that its path is unambiguous"
                )
            }
            throw bad("\(form) (two image paths separated by a comma; rgbd:,DEPTH for depth alone)")
        }
        let (color, depth) = pair(at: comma)
        return .images(color: color, depth: depth)
    }
}
