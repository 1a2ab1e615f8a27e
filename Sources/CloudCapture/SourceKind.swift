import CloudCore

/// One kind of source, as every door presents it: its name in specs, the form of its argument, a
/// line of help, the source options it takes, and, for the kinds a folder can hold, how to tell
/// such a folder. `SourceKind.all` is the one table: the spec parser, `capture --help`, the
/// options check, the service's archive detection and its OpenAPI document read it, and a test
/// holds Docs/cli.md to it. A new source is a folder of its own and a row here.
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
    /// The spec's argument (after the colon; nil without one) to a spec, or an error from `bad`.
    let parse: @Sendable (_ argument: Substring?, _ bad: (String) -> CloudError) throws -> SourceSpec

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
            options: [], layout: nil
        ) { argument, _ in
            .synthetic(try argument.map { try SyntheticSettings(parameters: $0, spec: "synthetic:\($0)") } ?? SyntheticSettings())
        },
        SourceKind(
            name: "rgbd", form: "rgbd:COLOR,DEPTH", summary: "one image pair (with --intrinsics, --depth-scale, --depth-encoding)",
            options: [.intrinsics, .depthScale, .depthEncoding], layout: nil
        ) { argument, bad in
            let paths = (argument ?? "").split(separator: ",", omittingEmptySubsequences: false)
            guard argument?.isEmpty == false, paths.count == 2, !paths[1].isEmpty else {
                throw bad(
                    argument?.isEmpty == false
                        ? "expected rgbd:COLOR,DEPTH (two image paths separated by a comma; rgbd:,DEPTH for depth alone)"
                        : "expected rgbd:COLOR,DEPTH")
            }
            return .rgbd(color: paths[0].isEmpty ? nil : String(paths[0]), depth: String(paths[1]))
        },
        SourceKind(
            name: "tum", form: "tum:DIR", summary: "a TUM RGB-D sequence, posed by groundtruth.txt",
            options: [.intrinsics, .depthScale],
            layout: Layout(description: "a TUM sequence (rgb.txt, depth.txt)") { $0.contains("rgb.txt") && $0.contains("depth.txt") }
        ) {
            .tum(directory: try required($0, "tum:DIR", $1))
        },
        SourceKind(
            name: "redwood", form: "redwood:DIR", summary: "an Open3D/Redwood folder, posed by trajectory.log",
            options: [.intrinsics, .depthScale],
            layout: Layout(description: "a Redwood folder (color/, depth/)") { $0.contains("color") && $0.contains("depth") }
        ) {
            .redwood(directory: try required($0, "redwood:DIR", $1))
        },
        SourceKind(
            name: "pclgrabber", form: "pclgrabber:DIR", summary: "PCL image-grabber recordings (frame_*.xml)",
            options: [.intrinsics, .depthScale],
            layout: Layout(description: "PCL grabber frames (*.xml, *_depth.*)") { entries in
                entries.contains { $0.hasSuffix(".xml") } && entries.contains { $0.contains("_depth.") }
            }
        ) {
            .pclGrabber(directory: try required($0, "pclgrabber:DIR", $1))
        },
        SourceKind(
            name: "bundle", form: "bundle:DIR", summary: "a capture bundle (phone capture format, or written with --bundle)",
            options: [], layout: Layout(description: "a capture bundle (manifest.json)") { $0.contains("manifest.json") }
        ) {
            .bundle(directory: try required($0, "bundle:DIR", $1))
        },
        SourceKind(
            name: "polycam", form: "polycam:DIR", summary: "a Polycam raw-data export (keyframes/; --min-confidence)",
            options: [.minConfidence],
            layout: Layout(description: "a Polycam raw-data export (keyframes/)") { $0.contains("keyframes") }
        ) {
            .polycam(directory: try required($0, "polycam:DIR", $1))
        },
        SourceKind(
            name: "photo", form: "photo:FILE", summary: "a portrait photo with depth, HEIC or JPEG (--known-distance, --matte)",
            options: [.knownDistance, .matte], layout: nil
        ) {
            .photo(path: try required($0, "photo:FILE", $1))
        },
        SourceKind(
            name: "stray", form: "stray:DIR", summary: "a Stray Scanner export (rgb.mp4, depth/, odometry.csv; --min-confidence)",
            options: [.minConfidence],
            layout: Layout(description: "a Stray Scanner export (rgb.mp4, odometry.csv)") {
                $0.contains("rgb.mp4") && $0.contains("odometry.csv")
            }
        ) {
            .stray(directory: try required($0, "stray:DIR", $1))
        },
        SourceKind(
            name: "record3d", form: "record3d:DIR", summary: "a Record3D \"EXR + JPG\" export (metadata.json, rgb/, depth/; not .r3d)",
            options: [],
            layout: Layout(description: "a Record3D EXR + JPG export (metadata.json, rgb/, depth/)") {
                $0.contains("metadata.json") && $0.contains("rgb") && $0.contains("depth")
            }
        ) {
            .record3d(directory: try required($0, "record3d:DIR", $1))
        },
        SourceKind(name: "kinect", form: "kinect[:INDEX]", summary: "Kinect v1 through libfreenect", options: [], layout: nil) {
            argument, bad in
            guard let argument else { return .kinect(index: 0) }
            // libfreenect takes an Int32 index; bounding it here keeps absurd values from trapping later.
            guard let index = Int(argument), (0...255).contains(index) else {
                throw bad("the device index must be an integer in 0...255 (0 is the first camera)")
            }
            return .kinect(index: index)
        },
        SourceKind(
            name: "openni2", form: "openni2[:URI|FILE.oni]", summary: "an OpenNI2 camera (Xtion, Carmine) or recording",
            options: [], layout: nil
        ) { argument, bad in
            .openNI2(argument == nil ? nil : try required(argument, "openni2:URI or openni2:FILE.oni", bad))
        }
    ]

    private static func required(_ argument: Substring?, _ form: String, _ bad: (String) -> CloudError) throws -> String {
        guard let argument, !argument.isEmpty else { throw bad("expected \(form)") }
        return String(argument)
    }
}
