import CloudCore
import Foundation

/// `POST /v1/streams`: the push side's camera (intrinsics and depth units) and the capture
/// options the service applies to every frame, with the keys of POST /v1/captures' JSON
/// (`"range": "0.3,4"`, `"frame": "world"`, `"filters": ["voxel=0.01"]`).
public struct StreamRequest: Sendable, Encodable {
    /// A capture option's JSON value.
    public enum Value: Sendable, Equatable, Encodable {
        case string(String)
        case number(Double)
        case bool(Bool)
        case strings([String])

        public func encode(to encoder: Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .string(let text): try container.encode(text)
            case .number(let number): try container.encode(number)
            case .bool(let flag): try container.encode(flag)
            case .strings(let list): try container.encode(list)
            }
        }
    }

    public var intrinsics: CameraIntrinsics
    /// Raw depth units per metre of the frames' 16-bit depth.
    public var depthScale: Double
    public var options: [String: Value]

    public init(intrinsics: CameraIntrinsics, depthScale: Double, options: [String: Value] = [:]) {
        self.intrinsics = intrinsics
        self.depthScale = depthScale
        self.options = options
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.init(stringValue) }
        init?(intValue: Int) { nil }
    }

    /// `{"push": {"intrinsics": {Open3D's camera_intrinsic.json}, "depth_scale": S}, ...options}`.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        var push = container.nestedContainer(keyedBy: Key.self, forKey: Key("push"))
        var camera = push.nestedContainer(keyedBy: Key.self, forKey: Key("intrinsics"))
        let k = intrinsics
        try camera.encode(k.referenceWidth, forKey: Key("width"))
        try camera.encode(k.referenceHeight, forKey: Key("height"))
        // Column-major, as Open3D writes it: fx, fy on the diagonal, cx, cy in the last column.
        try camera.encode([k.fx, 0, 0, 0, k.fy, 0, k.cx, k.cy, 1], forKey: Key("intrinsic_matrix"))
        try push.encode(depthScale, forKey: Key("depth_scale"))
        for (name, value) in options { try container.encode(value, forKey: Key(name)) }
    }
}

/// The service's answer to `POST /v1/streams`, its URLs made absolute.
public struct CreatedStream: Sendable, Equatable {
    public var id: String
    /// ws:// or wss://.
    public var pushURL: String
    public var liveURL: String
    /// The viewer's page, http:// or https://.
    public var page: String

    private struct Answer: Decodable {
        var id: String
        var pushUrl: String
        var liveUrl: String
        var page: String
    }

    /// Creates a stream on the service at `service`, with the bearer `token` when the service has one.
    public static func create(on service: ServiceURL, token: String?, _ request: StreamRequest) throws -> CreatedStream {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let response = try HTTPPost.send(service, path: "/v1/streams", json: try encoder.encode(request), token: token)
        guard response.status == 201 else { throw refusal(response, service: service, token: token) }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        guard let answer = try? decoder.decode(Answer.self, from: response.body) else {
            throw CloudError.badInput(
                "\(service.text): POST /v1/streams answered 201 without the id, push_url, live_url and page of a stream")
        }
        return CreatedStream(
            id: answer.id, pushURL: try service.resolve(answer.pushUrl, webSocket: true),
            liveURL: try service.resolve(answer.liveUrl, webSocket: true), page: try service.resolve(answer.page, webSocket: false))
    }

    /// The service's refusal in one line: its status, and the problem document's `detail`.
    static func refusal(_ response: HTTPPost.Response, service: ServiceURL, token: String?) -> CloudError {
        struct Problem: Decodable { var detail: String? }
        let detail = (try? JSONDecoder().decode(Problem.self, from: response.body))?.detail
        var why = detail.map { ": " + $0 } ?? ""
        switch response.status {
        case 401 where token != nil: why += " (the service did not accept the token given)"
        case 401 where detail == nil: why += " (the service wants a bearer token)"
        case 404 where detail == nil: why += " (this service has no streams: an older cloudgen serve?)"
        default: break
        }
        return CloudError.badInput("\(service.text): POST /v1/streams answered \(response.status)\(why)")
    }
}
