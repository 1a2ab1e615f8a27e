import CloudCapture
import CloudFiles
import CloudMeasure
import CloudPCL

/// One option of a capture, a conversion, an export or a measurement, as both doors spell it: the
/// CLI's flag and the service's field, the value's form, the words it takes, its default, and
/// where each door takes it. `OptionCatalogue.all` is the one list; a test holds every command's
/// flags, every route's fields and OpenAPI parameters, and the service page's controls to it, so
/// that neither door can gain, lose or spell an option differently without the other.
public struct CatalogueOption: Sendable {
    /// The CLI commands that take options from this list.
    public enum Command: String, Sendable, CaseIterable {
        case capture, convert, measure
    }

    /// The service's routes that take options from this list.
    public enum Route: String, Sendable, CaseIterable {
        /// POST /v1/captures as multipart/form-data (uploaded images, a photo or an archive).
        case captureForm = "POST /v1/captures multipart/form-data"
        /// POST /v1/captures as JSON (a source on the server).
        case captureJSON = "POST /v1/captures application/json"
        case convert = "POST /v1/convert multipart/form-data"
        /// GET /v1/captures/{id}/cloud.ply and cloud.pcd.
        case export = "GET /v1/captures/{id}/cloud.ply"
        case measure = "GET /v1/captures/{id}/measure"
    }

    /// The CLI's long flag without its dashes; nil when only the service takes it.
    public var flag: String?
    /// The service's form field, JSON key or query parameter; nil when only the CLI takes it.
    public var field: String?
    /// The value's form, as help writes it ("MIN,MAX"); empty for a switch.
    public var value: String
    /// The words the value is one of, in their one spelling; empty for a value of another form.
    public var vocabulary: [String]
    /// Older spellings still accepted, each with the word it stands for.
    public var aliases: [String: String]
    public var defaultValue: String?
    public var commands: Set<Command>
    public var routes: Set<Route>
    /// For the options only some source kinds take: which (`SourceKind.taking`).
    public var sourceOption: SourceKind.Option?

    init(
        flag: String?, field: String?, value: String = "", vocabulary: [String] = [], aliases: [String: String] = [:],
        defaultValue: String? = nil, commands: Set<Command>, routes: Set<Route>, sourceOption: SourceKind.Option? = nil
    ) {
        self.flag = flag
        self.field = field
        self.value = value
        self.vocabulary = vocabulary
        self.aliases = aliases
        self.defaultValue = defaultValue
        self.commands = commands
        self.routes = routes
        self.sourceOption = sourceOption
    }
}

public enum OptionCatalogue {
    /// The option a CLI flag is.
    public static func flag(_ name: String) -> CatalogueOption? { all.first { $0.flag == name } }
    /// The option a service field is.
    public static func field(_ name: String) -> CatalogueOption? { all.first { $0.field == name } }

    /// The fields `route` takes: its form fields and file parts, JSON keys or query parameters.
    public static func fields(of route: CatalogueOption.Route) -> Set<String> {
        Set(all.filter { $0.routes.contains(route) }.compactMap(\.field))
    }

    /// Both capture doors: what `capture` and `measure --source` take, and the capture routes.
    private static let captured: Set<CatalogueOption.Command> = [.capture, .measure]
    private static let captureRoutes: Set<CatalogueOption.Route> = [.captureForm, .captureJSON]
    /// The filters run where clouds are made or rewritten (a stored capture's export has no depth
    /// grid, so no `foreground`; `measure` fits its own planes).
    private static let filtered: Set<CatalogueOption.Command> = [.capture, .convert]
    private static let filterRoutes: Set<CatalogueOption.Route> = [.captureForm, .convert, .export]

    public static let all: [CatalogueOption] =
        [
            // The source and what only some kinds of source take (SourceKind.all says which).
            CatalogueOption(flag: "source", field: "source", value: "SPEC", commands: captured, routes: captureRoutes),
            CatalogueOption(
                flag: "intrinsics", field: "intrinsics", value: "FILE", commands: captured, routes: [.captureForm],
                sourceOption: .intrinsics),
            CatalogueOption(
                flag: "depth-scale", field: "depth_scale", value: "S", commands: captured, routes: captureRoutes,
                sourceOption: .depthScale),
            CatalogueOption(
                flag: "depth-encoding", field: "depth_encoding", vocabulary: DepthFileEncoding.allCases.map(\.rawValue),
                defaultValue: DepthFileEncoding.standard.rawValue, commands: captured, routes: captureRoutes,
                sourceOption: .depthEncoding),
            // An uploaded Polycam or Stray export keeps every pixel's confidence map as it comes.
            CatalogueOption(
                flag: "min-confidence", field: nil, value: "LEVEL", commands: captured, routes: [], sourceOption: .minConfidence),
            CatalogueOption(
                flag: "known-distance", field: "known_distance", value: "X,Y=METRES", commands: captured, routes: captureRoutes,
                sourceOption: .knownDistance),
            CatalogueOption(flag: "matte", field: "matte", commands: captured, routes: captureRoutes, sourceOption: .matte),
            // Which frames, in which frame of reference.
            CatalogueOption(
                flag: "frame", field: "frame", vocabulary: OutputFrame.allCases.map(\.rawValue), defaultValue: OutputFrame.camera.rawValue,
                commands: captured, routes: captureRoutes),
            CatalogueOption(
                flag: "range", field: "range", value: "MIN,MAX", commands: [.capture, .measure, .convert],
                routes: [.captureForm, .captureJSON, .convert]),
            CatalogueOption(flag: "frames", field: "frames", value: "N|all", commands: captured, routes: captureRoutes),
            // A request's work is bounded by frames; a duration is for live cameras on the CLI.
            CatalogueOption(flag: "duration", field: nil, value: "S", commands: captured, routes: []),
            CatalogueOption(flag: "fuse", field: "fuse", commands: captured, routes: captureRoutes),
            // Poses from the frames themselves; the HTTP doors do not take them yet.
            CatalogueOption(flag: "register", field: nil, commands: captured, routes: []),
            CatalogueOption(flag: "trajectory", field: nil, value: "FILE", commands: captured, routes: [])
        ] + filters + [
            CatalogueOption(flag: "organized", field: "organized", commands: filtered, routes: captureRoutes),
            // Any filter as a "voxel=0.01" step: the CLI's repeatable --filter, a JSON capture's array.
            CatalogueOption(flag: "filter", field: nil, value: "NAME[=VALUE]", commands: filtered, routes: []),
            CatalogueOption(flag: nil, field: "filters", value: "[NAME=VALUE]", commands: [], routes: [.captureJSON]),
            // What is written.
            CatalogueOption(flag: "ply", field: nil, value: "FILE", commands: filtered, routes: []),
            CatalogueOption(flag: "pcd", field: nil, value: "FILE", commands: filtered, routes: []),
            CatalogueOption(
                flag: "encoding", field: "encoding", vocabulary: CloudContainer.pcd.encodings.map(\.name),
                aliases: ["compressed": "binary_compressed"], defaultValue: "binary", commands: filtered, routes: [.convert, .export]),
            // Over HTTP the container is the format field (convert) or the URL (export: cloud.ply, cloud.pcd).
            CatalogueOption(
                flag: nil, field: "format", vocabulary: CloudContainer.all.map(\.name), defaultValue: "ply", commands: [],
                routes: [.convert]),
            CatalogueOption(flag: "rgbd", field: nil, value: "DIR", commands: [.capture], routes: []),
            CatalogueOption(flag: "bundle", field: nil, value: "DIR", commands: [.capture], routes: []),
            CatalogueOption(flag: "preview", field: nil, value: "FILE.png", commands: [.capture], routes: []),
            CatalogueOption(flag: "depth-image", field: nil, value: "FILE.png", commands: [.capture], routes: []),
            CatalogueOption(flag: "depth-blend", field: nil, value: "A", commands: [.capture], routes: []),
            CatalogueOption(flag: "json", field: nil, commands: [.capture, .measure], routes: []),
            // Measurement.
            CatalogueOption(
                flag: "up", field: "up", vocabulary: UpChoice.allCases.map(\.rawValue), defaultValue: UpChoice.auto.rawValue,
                commands: [.measure], routes: [.measure]),
            CatalogueOption(flag: "leaf", field: "leaf", value: "M", defaultValue: "0.03", commands: [.measure], routes: [.measure]),
            CatalogueOption(flag: "plan", field: nil, value: "FILE.png", commands: [.measure], routes: [])
        ]

    /// The filters (`FilterKind.listed`), run in the order given: each a field of every route
    /// that filters (and a flag of the commands, for those with one), but a step that needs the
    /// depth grid not of a stored capture's export, whose cloud has none.
    private static let filters = FilterKind.listed.map { kind in
        CatalogueOption(
            flag: kind.flagged ? kind.name : nil, field: kind.name, value: kind.form ?? "", commands: kind.flagged ? filtered : [],
            routes: kind.grid == .needs ? [.captureForm, .convert] : filterRoutes)
    }
}
