import Foundation

/// The headers of the two stream sockets' messages (StreamMessage framing: length, JSON header,
/// payloads). Keys are snake_case on the wire. Every header has `frame` (the frame's index) and
/// `captured` (the source's time of the frame, ns since the Unix epoch).

/// One frame a client pushes (`GET /v1/streams/{id}/push`): the depth payload, then the color
/// payload when there is one.
public struct PushHeader: Codable, Equatable, Sendable {
    /// The depth payload: `encoding` "png" (16-bit grayscale), "rvl" or "zstd" (DepthFrameCodec).
    public typealias Depth = StreamImage

    public struct Color: Codable, Equatable, Sendable {
        /// "jpeg".
        public var encoding: String
        public var bytes: Int

        public init(encoding: String, bytes: Int) {
            self.encoding = encoding
            self.bytes = bytes
        }
    }

    public var frame: Int
    public var captured: Int64
    public var depth: Depth
    public var color: Color?
    /// Camera to world, 16 numbers, row-major.
    public var pose: [Double]?

    public init(frame: Int, captured: Int64, depth: Depth, color: Color?, pose: [Double]?) {
        self.frame = frame
        self.captured = captured
        self.depth = depth
        self.color = color
        self.pose = pose
    }

    /// The payload sizes the header announces, in order.
    public var payloadSizes: [Int] { [depth.bytes] + (color.map { [$0.bytes] } ?? []) }
}

/// One frame a viewer receives (`GET /v1/streams/{id}/live`): `points` x 3 int16 positions (steps
/// of `scale` metres from `origin`, little-endian, QuantisedCloud), `points` x 3 bytes of RGB, then
/// with `depth=1` the frame's depth as a JET-colored PNG, then with `color=1` its color image
/// (the JPEG a client pushed, or a PNG of a server-run source's).
///
/// The stream's last message, when it ends for a reason other than its owner's DELETE, has
/// `event` "problem" with `detail` saying why, and no payloads; the socket then closes.
public struct LiveHeader: Codable, Equatable, Sendable {
    /// A picture payload: `encoding` "png" or "jpeg".
    public typealias Image = StreamImage

    public var frame: Int
    public var captured: Int64
    /// The server's clock (ns since the Unix epoch) when the frame arrived and when this message left.
    public var received: Int64
    public var sent: Int64
    public var points: Int
    /// Finite points in the frame's cloud, of which `points` were kept.
    public var total: Int
    public var origin: [Float]
    public var scale: Float
    public var depth: Image?
    public var color: Image?
    /// On a viewer's first frame: the camera `cloudgen render` would draw it with, for the
    /// viewer's `width` x `height`, and the preview's point size for that size.
    public var camera: ViewCamera?
    public var pointSize: Int?
    /// Frames the server had to skip for this viewer since its last message (it sends the newest).
    public var skipped: Int
    public var event: String?
    public var detail: String?

    public init(
        frame: Int, captured: Int64, received: Int64, sent: Int64, points: Int, total: Int, origin: [Float], scale: Float,
        depth: Image?, color: Image?, camera: ViewCamera? = nil, pointSize: Int? = nil, skipped: Int = 0, event: String? = nil,
        detail: String? = nil
    ) {
        self.frame = frame
        self.captured = captured
        self.received = received
        self.sent = sent
        self.points = points
        self.total = total
        self.origin = origin
        self.scale = scale
        self.depth = depth
        self.color = color
        self.camera = camera
        self.pointSize = pointSize
        self.skipped = skipped
        self.event = event
        self.detail = detail
    }

    /// The payload sizes the header announces, in order.
    public var payloadSizes: [Int] {
        event != nil ? [] : [6 * points, 3 * points] + [depth, color].compactMap { $0?.bytes }
    }
}

/// The orbit camera of `cloudgen render` (OrbitCamera), in the cloud's metres and degrees, as the
/// 3D views start from it.
public struct ViewCamera: Codable, Equatable, Sendable {
    public var target: [Float]
    public var distance: Float
    public var azimuth: Float
    public var elevation: Float
    public var fieldOfView: Float
    /// "-y" (a camera-frame cloud) or "+z" (a room), as `render --up` writes it.
    public var up: String
    public var width: Int
    public var height: Int

    public init(
        target: [Float], distance: Float, azimuth: Float, elevation: Float, fieldOfView: Float, up: String, width: Int, height: Int
    ) {
        self.target = target
        self.distance = distance
        self.azimuth = azimuth
        self.elevation = elevation
        self.fieldOfView = fieldOfView
        self.up = up
        self.width = width
        self.height = height
    }
}

/// An image payload both sockets describe alike: its coding, its size in pixels and its length.
public struct StreamImage: Codable, Equatable, Sendable {
    public var encoding: String
    public var width: Int
    public var height: Int
    /// The payload's length.
    public var bytes: Int

    public init(encoding: String, width: Int, height: Int, bytes: Int) {
        self.encoding = encoding
        self.width = width
        self.height = height
        self.bytes = bytes
    }
}

/// Nanoseconds since the Unix epoch, the unit of `captured`, `received` and `sent`.
public enum StreamClock {
    public static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }
}
