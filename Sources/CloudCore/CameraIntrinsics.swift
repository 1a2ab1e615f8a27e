/// Pinhole intrinsics given at reference dimensions, as AVFoundation delivers them
/// (`intrinsicMatrix` + `intrinsicMatrixReferenceDimensions`), Open3D's PinholeCameraIntrinsic and
/// PCL's grabber XML all do.
///
/// Pixel-centre convention (the one OpenCV, PCL and Open3D back-project with): the centre of pixel
/// (u, v) is at image coordinate (u, v); pixel (0, 0) covers [-0.5, 0.5] x [-0.5, 0.5]; a pixel at
/// depth z back-projects to ((u - cx) z / fx, (v - cy) z / fy, z).
///
/// Scaling to another resolution keeps every pixel's footprint on the same rays: the image edges
/// (-0.5 and W - 0.5) map onto each other, so with s = W' / W
///     fx' = fx * s,   cx' = (cx + 0.5) * s - 0.5   (likewise fy, cy with the heights).
/// Multiplying cx by s alone (the shortcut many tools take) shifts every ray by 0.5 * (s - 1)
/// pixels: 0.43 px at 256x192 from a 1920x1440 reference, a few millimetres at room range.
public struct CameraIntrinsics: Equatable, Codable, Sendable {
    public var fx: Double
    public var fy: Double
    public var cx: Double
    public var cy: Double
    /// The image size in pixels that fx, fy, cx, cy are expressed in.
    public var referenceWidth: Int
    public var referenceHeight: Int

    /// Encoded as {width, height, fx, fy, cx, cy}: the reference dimensions are the image size the
    /// values belong to, which is how `--json` reports and exports name them.
    enum CodingKeys: String, CodingKey {
        case fx, fy, cx, cy
        case referenceWidth = "width"
        case referenceHeight = "height"
    }

    public init(fx: Double, fy: Double, cx: Double, cy: Double, referenceWidth: Int, referenceHeight: Int) {
        self.fx = fx
        self.fy = fy
        self.cx = cx
        self.cy = cy
        self.referenceWidth = referenceWidth
        self.referenceHeight = referenceHeight
    }

    /// Refuses intrinsics that would turn every point into NaN or infinity. `origin` names where
    /// they came from (a file, a source spec) for the error message.
    public func validate(origin: String) throws {
        func bad(_ what: String) -> CloudError { .badInput("\(origin): \(what)") }
        guard fx.isFinite, fy.isFinite, fx > 0, fy > 0 else {
            throw bad("focal lengths must be finite and positive (fx=\(fx), fy=\(fy))")
        }
        guard cx.isFinite, cy.isFinite else { throw bad("principal point must be finite (cx=\(cx), cy=\(cy))") }
        guard referenceWidth > 0, referenceHeight > 0, referenceWidth <= 65536, referenceHeight <= 65536 else {
            throw bad("reference dimensions \(referenceWidth)x\(referenceHeight) are not a plausible image size")
        }
    }

    /// These intrinsics expressed for an image of `width` x `height` pixels of the same camera.
    public func scaled(toWidth width: Int, height: Int) -> CameraIntrinsics {
        let sx = Double(width) / Double(referenceWidth)
        let sy = Double(height) / Double(referenceHeight)
        return CameraIntrinsics(
            fx: fx * sx, fy: fy * sy,
            cx: (cx + 0.5) * sx - 0.5, cy: (cy + 0.5) * sy - 0.5,
            referenceWidth: width, referenceHeight: height)
    }

    /// How much scaling to `width` x `height` stretches one axis against the other (0 for a
    /// uniform scale). Intrinsics for 1920x1080 used with a 640x480 image give 0.33: the image is
    /// almost surely a crop or another mode, not a scaled view, and scaling makes pixels non-square.
    public func aspectChange(toWidth width: Int, height: Int) -> Double {
        let sx = Double(width) / Double(referenceWidth)
        let sy = Double(height) / Double(referenceHeight)
        return abs(sx / sy - 1)
    }

    /// The point at depth `z` (metres along the optical axis) seen through image coordinate (u, v).
    @inlinable
    public func backProject(u: Double, v: Double, z: Double) -> SIMD3<Double> {
        SIMD3((u - cx) * z / fx, (v - cy) * z / fy, z)
    }

    /// The image coordinate a camera-frame point projects to.
    @inlinable
    public func project(_ p: SIMD3<Double>) -> SIMD2<Double> {
        SIMD2(fx * p.x / p.z + cx, fy * p.y / p.z + cy)
    }
}
