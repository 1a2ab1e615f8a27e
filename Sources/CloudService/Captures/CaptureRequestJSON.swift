import CloudCapture
import CloudCore
import CloudPipeline
import Foundation
import HTTPTypes

/// POST /v1/captures with a JSON body: a capture taken on the server's side.
///
///     {"source": "synthetic:room=5x4x2.6", "frames": 24, "fuse": true, "frame": "world",
///      "range": "0.3,6", "depth_scale": 1000, "filters": ["voxel=0.01", "sor=20,2", "normals"],
///      "organized": false}
///
/// The simulated camera and attached devices may be named freely; a dataset folder only inside
/// a folder the server was started with `--allow-dir`. Keys are checked as the body is decoded
/// (unknown ones, and values of a type the key cannot take, are refused naming the key); their
/// values when the order is made, as an upload's fields.
struct CaptureRequestJSON: Decodable {
    static let keys = OptionCatalogue.fields(of: .captureJSON).union(CaptureLabelFields.names)
    /// Keys with one value each, in the CLI's order: frames, fuse and frame before the filters
    /// they constrain.
    private static let scalarKeys = [
        "frames", "fuse", "frame", "range", "organized", "depth_scale", "depth_encoding", "known_distance", "matte"
    ]

    /// Nil when the key is missing or not a string.
    var source: String?
    /// The scalar keys given, as the form's text: numbers, booleans and strings alike.
    var fields: [(name: String, value: String)] = []
    var filters: [String]?
    /// `fuse` given as JSON's true.
    var fuses = false
    var labels: CaptureLabelPatch

    init(from decoder: Decoder) throws {
        try self.init(from: decoder, routeKeys: [])
    }

    /// A body whose route takes `routeKeys` of its own beside a capture's (a stream's `push`, `fps`).
    init(from decoder: Decoder, routeKeys: Set<String>) throws {
        let container = try decoder.container(keyedBy: JSONKey.self)
        let known = Self.keys.union(routeKeys)
        if let unknown = JSONBody.unknownKey(in: container, known: known) {
            throw Problem.badRequest(
                "unknown key \(MessageTextShort.of(unknown)); this route takes \(known.sorted().joined(separator: ", "))",
                field: unknown)
        }
        source = try? container.decode(String.self, forKey: JSONKey("source"))
        for key in Self.scalarKeys where container.contains(JSONKey(key)) {
            guard let value = try? container.decode(FieldText.self, forKey: JSONKey(key)) else {
                throw Problem.badRequest("\(key): needs a string, number or boolean", field: key)
            }
            fields.append((key, value.text))
            if key == "fuse", value.isTrue { fuses = true }
        }
        if container.contains(JSONKey("filters")) {
            guard let list = try? container.decode([String].self, forKey: JSONKey("filters")) else {
                throw Problem.badRequest(
                    "filters: needs an array of steps such as [\"voxel=0.01\", \"sor=20,2\", \"normals\"]", field: "filters")
            }
            filters = list
        }
        labels = try CaptureLabelPatch(from: decoder)
    }

    /// The capture the body asks for, checked as an upload's fields are.
    func order(allowed: [String]) throws -> CaptureOrder {
        guard let source, !source.isEmpty else {
            throw Problem.badRequest(
                "key source is required: a source spec such as \"synthetic\" or \"redwood:/data/scan\"", field: "source")
        }
        let spec: SourceSpec
        do {
            spec = try SourceSpec(parsing: source)
        } catch let error as CloudError {
            throw Problem.unprocessable(FieldWording.detail(error), field: "source")
        }
        try Self.checkAllowed(spec, allowed: allowed)
        var order = CaptureOrder(source: spec)
        try apply(to: &order)
        // Which kinds take which options is the source table's rule (SourceKind.all), as on the CLI.
        try order.options.check(for: spec)
        try order.check()
        return order
    }

    /// The body's options and filters, applied to `order` as an upload's fields are.
    func apply(to order: inout CaptureOrder) throws {
        var fields = fields
        if let filters {
            try WorkLimits.checkStepCount(filters.count, field: "filters")
            for step in filters {
                let pair = step.split(separator: "=", maxSplits: 1).map(String.init)
                guard let name = pair.first, CaptureOrder.filterFields.contains(name) else {
                    throw Problem.unprocessable(
                        "filters: \(MessageTextShort.of(step)) is not a filter; use \(CaptureOrder.filterFields.sorted().joined(separator: ", "))",
                        field: "filters")
                }
                fields.append((name, pair.count == 2 ? pair[1] : ""))
            }
        }
        // A JSON capture fuses "all" only when asked; its default is one frame, as the CLI's.
        if fuses, !fields.contains(where: { $0.name == "frames" }) { fields.insert(("frames", "all"), at: 0) }
        try order.applyImageFields(fields)
    }

    /// Dataset folders and recordings must lie inside an `--allow-dir` (symbolic links resolved).
    static func checkAllowed(_ spec: SourceSpec, allowed: [String]) throws {
        for path in spec.inputPaths { try checkAllowed(path: path, source: spec.text, allowed: allowed) }
    }

    private static func checkAllowed(path: String, source: String, allowed: [String]) throws {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let inside = allowed.contains { root in
            let base = URL(fileURLWithPath: root).resolvingSymlinksInPath().path
            return resolved == base || resolved.hasPrefix(base.hasSuffix("/") ? base : base + "/")
        }
        guard inside else {
            throw Problem(
                .forbidden,
                "source \(MessageTextShort.of(source)): the server reads only folders it was started with --allow-dir for\(allowed.isEmpty ? " (none)" : "")",
                field: "source")
        }
    }
}
