/// A frame as a source delivers it, before any conversion: the depth plane in its stored encoding
/// and the color planes in their pixel format. Keeping this raw form lets every source (phone
/// bundle, dataset, simulated camera) go through the same conversion code, and lets `--json`
/// report what the source actually delivered.
public struct CapturedFrame: Sendable {
    public struct Depth: Sendable {
        /// AVDepthData's `depthDataAccuracy`. Relative depth (dual-camera disparity) orders points
        /// correctly but has no known scale: a cloud made from it is not in metres.
        public enum Accuracy: String, Sendable {
            case absolute, relative
        }

        public var width: Int
        public var height: Int
        public var encoding: DepthEncoding
        /// Little-endian samples, rows `bytesPerRow` apart.
        public var data: [UInt8]
        public var bytesPerRow: Int
        public var accuracy: Accuracy
        /// Whether the source smoothed and filled holes (AVDepthData's `isDepthDataFiltered`).
        public var isFiltered: Bool

        public init(
            width: Int, height: Int, encoding: DepthEncoding, data: [UInt8], bytesPerRow: Int? = nil,
            accuracy: Accuracy = .absolute, isFiltered: Bool = false
        ) {
            self.width = width
            self.height = height
            self.encoding = encoding
            self.data = data
            self.bytesPerRow = bytesPerRow ?? width * encoding.bytesPerSample
            self.accuracy = accuracy
            self.isFiltered = isFiltered
        }
    }

    public struct Color: Sendable {
        public enum Layout: Equatable, Sendable {
            case rgb8
            case bgra8
            /// `planes[0]` is Y, `planes[1]` interleaved Cb Cr at half resolution.
            case yuv420BiPlanar(YUVFormat)
        }

        public var width: Int
        public var height: Int
        public var layout: Layout
        public var planes: [[UInt8]]

        public init(width: Int, height: Int, layout: Layout, planes: [[UInt8]]) {
            self.width = width
            self.height = height
            self.layout = layout
            self.planes = planes
        }
    }

    public var depth: Depth
    public var color: Color?
    /// Intrinsics at their reference dimensions; they are scaled to each image's size when used.
    public var intrinsics: CameraIntrinsics
    /// Camera-to-world pose, when the source knows it.
    public var pose: Pose?
    /// Seconds, in the source's own clock.
    public var timestamp: Double
    /// The lens's radial distortion, shared by depth and color (one lens, one calibration), at
    /// the intrinsics' reference dimensions; nil when the images are rectified or the lens is ideal.
    public var distortion: LensDistortion?
    /// Depth camera frame to color camera frame (metres); nil when the images are registered,
    /// i.e. seen from one viewpoint, as AVFoundation delivers depth with video.
    public var depthToColor: Pose?

    public init(
        depth: Depth, color: Color?, intrinsics: CameraIntrinsics, pose: Pose?, timestamp: Double,
        distortion: LensDistortion? = nil, depthToColor: Pose? = nil
    ) {
        self.depth = depth
        self.color = color
        self.intrinsics = intrinsics
        self.pose = pose
        self.timestamp = timestamp
        self.distortion = distortion
        self.depthToColor = depthToColor
    }
}

/// Depth in metres and sRGB color of one instant, with the intrinsics at their reference size.
public struct RGBDFrame: Sendable {
    public var depth: DepthMap
    public var color: ColorImage?
    public var intrinsics: CameraIntrinsics
    public var pose: Pose?
    /// The lens's radial distortion, when the source knows it: back-projection then follows each
    /// pixel's rectified ray.
    public var distortion: LensDistortion?

    public init(
        depth: DepthMap, color: ColorImage?, intrinsics: CameraIntrinsics, pose: Pose?,
        distortion: LensDistortion? = nil
    ) {
        self.depth = depth
        self.color = color
        self.intrinsics = intrinsics
        self.pose = pose
        self.distortion = distortion
    }

    /// Converts a captured frame: depth to metres, color to RGB. `origin` names the source in errors.
    /// With `colorAtDepthResolution`, only the color pixels the depth pixels sample are converted
    /// (the cloud comes out identical; the frame's color image is then depth-sized).
    public init(decoding frame: CapturedFrame, origin: String, colorAtDepthResolution: Bool = false) throws {
        try frame.intrinsics.validate(origin: origin)
        let d = frame.depth
        let depth = try d.data.withUnsafeBytes {
            try DepthMap(
                raw: $0, width: d.width, height: d.height, encoding: d.encoding,
                bytesPerRow: d.bytesPerRow, origin: origin)
        }
        var color: ColorImage?
        if let c = frame.color {
            color =
                colorAtDepthResolution
                ? try ColorImage(decoding: c, sampledAt: d.width, height: d.height, origin: origin)
                : try ColorImage(decoding: c, origin: origin)
        }
        self.init(depth: depth, color: color, intrinsics: frame.intrinsics, pose: frame.pose, distortion: frame.distortion)
    }
}

extension ColorImage {
    public init(decoding c: CapturedFrame.Color, origin: String) throws {
        func plane(_ i: Int) throws -> [UInt8] {
            guard i < c.planes.count else { throw CloudError.badInput("\(origin): color plane \(i) is missing") }
            return c.planes[i]
        }
        switch c.layout {
        case .rgb8:
            self = try plane(0).withUnsafeBytes { try ColorImage(rgb: $0, width: c.width, height: c.height, origin: origin) }
        case .bgra8:
            self = try plane(0).withUnsafeBytes { try ColorImage(bgra: $0, width: c.width, height: c.height, origin: origin) }
        case .yuv420BiPlanar(let format):
            let (y, cbcr) = (try plane(0), try plane(1))
            self = try y.withUnsafeBytes { yb in
                try cbcr.withUnsafeBytes { cb in
                    try ColorImage(yPlane: yb, cbcrPlane: cb, width: c.width, height: c.height, format: format, origin: origin)
                }
            }
        }
    }
}
