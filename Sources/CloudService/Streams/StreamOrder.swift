import CloudCapture
import CloudCore
import Foundation

/// POST /v1/streams: what a stream is fed and what is made of each frame.
///
///     {"source": "synthetic", "fps": 15, "range": "0.3,4"}
///     {"push": {"intrinsics": {"width": 640, "height": 480, "intrinsic_matrix": [...]},
///               "depth_scale": 1000}, "frame": "world", "filters": ["voxel=0.01"]}
///
/// The capture keys are POST /v1/captures' (CaptureRequestJSON), checked with its messages; a
/// stream has no `frames` or `fuse` (it runs until it is ended, one cloud per frame), and its
/// labels go to the capture a recording makes.
struct StreamOrder: Sendable {
    enum Feed: Sendable {
        /// A source the server opens and runs: at `fps`, or at a recording's own pace when nil.
        case source(fps: Double?)
        /// Frames a client pushes, with this calibration, these depth units and this 16-bit encoding.
        case push(intrinsics: IntrinsicsFile, depthUnitsPerMetre: Double, depthEncoding: DepthFileEncoding)
    }

    var feed: Feed
    /// The range, output frame and filters each frame's cloud gets, and for a source feed its spec
    /// and options.
    var capture: CaptureOrder
    var labels: CaptureLabels

    /// A stream's own keys beside a capture's.
    static let routeKeys: Set<String> = ["push", "fps"]
    static let maxFPS = 120.0

    static func decode(_ body: Data, allowed: [String]) throws -> StreamOrder {
        let request = try JSONBody.decode(StreamRequestJSON.self, from: body)
        let capture = request.capture
        for key in ["frames", "fuse"] where capture.fields.contains(where: { $0.name == key }) {
            throw Problem.unprocessable(
                "\(key): a stream makes one cloud per frame until it is ended; record it to keep frames as one capture", field: key)
        }
        let labels = try capture.labels.applied(to: CaptureLabels())
        if let fps = request.fps, !(fps > 0 && fps <= maxFPS) {
            throw Problem.unprocessable("fps \(fps): needs a rate above 0 and at most \(Int(maxFPS)) frames a second", field: "fps")
        }
        switch (capture.source, request.push) {
        case (nil, nil):
            throw Problem.badRequest(
                "a stream needs source (a source spec the server runs, such as \"synthetic\") or push (the calibration of frames you will send)",
                field: "source")
        case (.some, .some):
            throw Problem.badRequest("a stream takes source or push, not both", field: "push")
        case (.some, nil):
            return StreamOrder(feed: .source(fps: request.fps), capture: try capture.order(allowed: allowed), labels: labels)
        case (nil, .some(let push)):
            if request.fps != nil {
                throw Problem.badRequest("fps: a pushed stream goes at the pace its frames arrive", field: "fps")
            }
            var order = CaptureOrder(source: nil)
            try capture.apply(to: &order)
            if order.options.depthEncoding != .standard || order.options.depthUnitsPerMetre != nil {
                throw Problem.badRequest(
                    "depth_scale and depth_encoding of a pushed stream go inside push, beside its intrinsics", field: "push")
            }
            try order.check()
            return StreamOrder(
                feed: .push(intrinsics: push.intrinsics, depthUnitsPerMetre: push.depthUnitsPerMetre, depthEncoding: push.depthEncoding),
                capture: order, labels: labels)
        }
    }

    /// What GET /v1/streams says the stream is fed by.
    var feedDescription: String {
        switch feed {
        case .source: return capture.source?.text ?? "push"
        case .push: return "push"
        }
    }
}

/// The body's keys: a capture request's, plus `push` and `fps`.
private struct StreamRequestJSON: Decodable {
    var capture: CaptureRequestJSON
    var push: PushCalibration?
    var fps: Double?

    init(from decoder: Decoder) throws {
        capture = try CaptureRequestJSON(from: decoder, routeKeys: StreamOrder.routeKeys)
        let container = try decoder.container(keyedBy: JSONKey.self)
        if container.contains(JSONKey("fps")) {
            guard let fps = try? container.decode(Double.self, forKey: JSONKey("fps")) else {
                throw Problem.badRequest("fps: needs a number of frames a second", field: "fps")
            }
            self.fps = fps
        }
        if container.contains(JSONKey("push")) {
            push = try container.decode(PushCalibration.self, forKey: JSONKey("push"))
        }
    }
}

/// `push`: `intrinsics` as an object in any form an uploaded intrinsics file takes (Open3D's,
/// cloudgen's), `depth_scale`, the raw depth units per metre of the frames' 16-bit depth, and
/// `depth_encoding`, how those samples store depth (standard, nyu, sun), as for uploads.
private struct PushCalibration: Decodable {
    var intrinsics: IntrinsicsFile
    var depthUnitsPerMetre: Double
    var depthEncoding = DepthFileEncoding.standard

    static let keys: Set<String> = ["intrinsics", "depth_scale", "depth_encoding"]

    init(from decoder: Decoder) throws {
        guard let container = try? decoder.container(keyedBy: JSONKey.self) else {
            throw Problem.badRequest("push: needs an object with intrinsics and depth_scale", field: "push")
        }
        if let unknown = JSONBody.unknownKey(in: container, known: Self.keys) {
            throw Problem.badRequest(
                "push.\(unknown): unknown key; push takes \(Self.keys.sorted().joined(separator: ", "))", field: "push.\(unknown)")
        }
        guard let object = try? container.decode(JSONValue.self, forKey: JSONKey("intrinsics")), case .object = object else {
            throw Problem.badRequest(
                "push.intrinsics: needs the camera's calibration as an object (Open3D's camera_intrinsic.json, or cloudgen's fx, fy, cx, cy, width, height)",
                field: "push.intrinsics")
        }
        do {
            intrinsics = try IntrinsicsFile.parse(json: try object.encoded(), origin: "push.intrinsics")
        } catch let error as CloudError {
            throw Problem.unprocessable(FieldWording.detail(error), field: "push.intrinsics")
        }
        if container.contains(JSONKey("depth_scale")) {
            guard let scale = try? container.decode(Double.self, forKey: JSONKey("depth_scale")),
                DepthEncoding.isUsableScale(scale)
            else {
                throw Problem.unprocessable(
                    "push.depth_scale: needs the raw depth units per metre, a positive number (1000 for millimetres, 5000 for TUM)",
                    field: "push.depth_scale")
            }
            depthUnitsPerMetre = scale
        } else {
            depthUnitsPerMetre = intrinsics.depthUnitsPerMetre ?? 1000
        }
        if container.contains(JSONKey("depth_encoding")) {
            guard let text = try? container.decode(String.self, forKey: JSONKey("depth_encoding")),
                let encoding = DepthFileEncoding(rawValue: text)
            else {
                throw Problem.unprocessable(
                    "push.depth_encoding: needs \(DepthFileEncoding.allCases.map(\.rawValue).joined(separator: ", "))",
                    field: "push.depth_encoding")
            }
            depthEncoding = encoding
        }
    }
}
