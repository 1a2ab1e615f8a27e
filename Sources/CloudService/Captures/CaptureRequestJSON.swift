import CloudCapture
import CloudCore
import Foundation

/// POST /v1/captures with a JSON body: a capture taken on the server's side.
///
///     {"source": "synthetic:room=5x4x2.6", "frames": 24, "fuse": true, "frame": "world",
///      "range": "0.3,6", "depth_scale": 1000, "filters": ["voxel=0.01", "sor=20,2", "normals"],
///      "organized": false}
///
/// The simulated camera and attached devices may be named freely; a dataset folder only inside
/// a folder the server was started with `--allow-dir`.
enum CaptureRequestJSON {
    static let keys = Set(["source", "frames", "fuse", "frame", "range", "depth_scale", "depth_encoding", "filters", "organized"])
        .union(CaptureLabelFields.names).union(["known_distance", "matte"])

    /// The capture's name, tags and note in the body (`order` has checked its keys).
    static func labels(_ data: Data) throws -> CaptureLabels {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw Problem.badRequest("the body is not a JSON object")
        }
        return try CaptureLabelFields.merged(object, onto: CaptureLabels())
    }

    static func order(_ data: Data, allowed: [String]) throws -> CaptureOrder {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw Problem.badRequest("the body is not a JSON object")
        }
        if let unknown = object.keys.sorted().first(where: { !keys.contains($0) }) {
            throw Problem.badRequest("unknown key \(MessageTextShort.of(unknown)); this route takes \(keys.sorted().joined(separator: ", "))", field: unknown)
        }
        guard let source = object["source"] as? String, !source.isEmpty else {
            throw Problem.badRequest("key source is required: a source spec such as \"synthetic\" or \"redwood:/data/scan\"", field: "source")
        }
        let spec: SourceSpec
        do {
            spec = try SourceSpec(parsing: source)
        } catch let error as CloudError {
            throw Problem.unprocessable(error.message, field: "source")
        }
        try checkAllowed(spec, source: source, allowed: allowed)
        var order = CaptureOrder(sourceSpec: source)
        // Fields in the CLI's order: frames, fuse and frame before the filters they constrain.
        var fields: [(name: String, value: String)] = []
        for key in ["frames", "fuse", "frame", "range", "organized", "depth_scale", "depth_encoding", "known_distance", "matte"] {
            guard let value = object[key] else { continue }
            fields.append((key, try text(value, key: key)))
        }
        if let filters = object["filters"] {
            guard let list = filters as? [String] else {
                throw Problem.badRequest("filters: needs an array of steps such as [\"voxel=0.01\", \"sor=20,2\", \"normals\"]", field: "filters")
            }
            try WorkLimits.checkStepCount(list.count, field: "filters")
            for step in list {
                let pair = step.split(separator: "=", maxSplits: 1).map(String.init)
                guard let name = pair.first, CaptureOrder.filterFields.contains(name) else {
                    throw Problem.unprocessable("filters: \(MessageTextShort.of(step)) is not a filter; use \(CaptureOrder.filterFields.sorted().joined(separator: ", "))", field: "filters")
                }
                fields.append((name, pair.count == 2 ? pair[1] : ""))
            }
        }
        // A JSON capture fuses "all" only when asked; its default is one frame, as the CLI's.
        if object["frames"] == nil, object["fuse"] as? Bool == true { fields.insert(("frames", "all"), at: 0) }
        try order.applyImageFields(fields)
        if order.options.depthUnitsPerMetre != nil || order.options.depthEncoding != .standard {
            let datasets = ["tum", "redwood", "pclgrabber"]
            guard datasets.contains(spec.kind) else {
                throw Problem.unprocessable("depth_scale and depth_encoding apply to dataset sources (\(datasets.joined(separator: ", "))), not \(spec.kind):", field: "depth_scale")
            }
        }
        try order.check()
        return order
    }

    /// JSON scalars as the form's text: numbers, booleans and strings alike.
    private static func text(_ value: Any, key: String) throws -> String {
        switch value {
        case let s as String: return s
        case let n as NSNumber:
            // JSON's true and false arrive as NSNumbers too, of Objective-C type 'c' (char).
            if String(cString: n.objCType) == "c" { return n.boolValue ? "true" : "false" }
            return n.stringValue
        default: throw Problem.badRequest("\(key): needs a string, number or boolean", field: key)
        }
    }

    /// Whether `spec` names a USB camera (kinect, openni2): its failures are the camera's.
    static func namesDevice(_ spec: String) -> Bool {
        guard let parsed = try? SourceSpec(parsing: spec) else { return false }
        switch parsed {
        case .kinect, .openNI2: return true
        default: return false
        }
    }

    /// Dataset folders and recordings must lie inside an `--allow-dir` (symbolic links resolved).
    static func checkAllowed(_ spec: SourceSpec, source: String, allowed: [String]) throws {
        let path: String?
        switch spec {
        case .synthetic, .kinect: path = nil
        case .openNI2(let target): path = target.flatMap { $0.contains("/") || $0.hasSuffix(".oni") ? $0 : nil }
        case .rgbd(let color, let depth):
            for p in [color, depth].compactMap({ $0 }) { try checkAllowed(path: p, source: source, allowed: allowed) }
            return
        case .tum(let d), .redwood(let d), .pclGrabber(let d), .bundle(let d), .polycam(let d), .photo(let d), .stray(let d), .record3d(let d): path = d
        }
        if let path { try checkAllowed(path: path, source: source, allowed: allowed) }
    }

    private static func checkAllowed(path: String, source: String, allowed: [String]) throws {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let inside = allowed.contains { root in
            let base = URL(fileURLWithPath: root).resolvingSymlinksInPath().path
            return resolved == base || resolved.hasPrefix(base.hasSuffix("/") ? base : base + "/")
        }
        guard inside else {
            throw Problem(.forbidden, "source \(MessageTextShort.of(source)): the server reads only folders it was started with --allow-dir for\(allowed.isEmpty ? " (none)" : "")", field: "source")
        }
    }
}
