import CloudCore

/// The Kinect v1's depth model, as libfreenect describes the camera: the zero-plane constants
/// (libfreenect_registration.h) turn the 11-bit raw disparity into millimetres, give the IR
/// camera's focal length and the distance to the RGB camera. cloudgen converts and registers
/// itself, because fakenect's playback library (the tests' stand-in for a camera) has neither
/// libfreenect's millimetre modes nor its registration functions, and a real camera must go
/// through the same code the tests check.
public struct KinectCalibration: Equatable, Sendable {
    /// IR camera to IR projector, centimetres.
    public var emitterDistance: Double
    /// IR camera to RGB camera, centimetres.
    public var rgbDistance: Double
    /// The IR camera's focal length, millimetres.
    public var referenceDistance: Double
    /// One sensor pixel at the full 1280-pixel width, millimetres.
    public var referencePixelSize: Double
    /// The raw value offset, raw units.
    public var constShift: Double
    /// Whether the device gave these (only the real libfreenect can read them).
    public var fromDevice: Bool

    /// libfreenect's defaults ("ripped from" a Kinect by its authors), used when the device cannot be asked.
    public static let defaults = KinectCalibration(
        emitterDistance: 7.5, rgbDistance: 2.3, referenceDistance: 120,
        referencePixelSize: 0.1042, constShift: 200, fromDevice: false)

    public init(
        emitterDistance: Double, rgbDistance: Double, referenceDistance: Double, referencePixelSize: Double,
        constShift: Double, fromDevice: Bool
    ) {
        self.emitterDistance = emitterDistance
        self.rgbDistance = rgbDistance
        self.referenceDistance = referenceDistance
        self.referencePixelSize = referencePixelSize
        self.constShift = constShift
        self.fromDevice = fromDevice
    }

    public static let width = 640
    public static let height = 480
    /// The 11-bit value the camera sends where it saw no pattern.
    public static let noDepthRaw: UInt16 = 2047
    /// libfreenect's millimetre modes end at 10 m; beyond, the disparity is noise.
    public static let maximumMillimetres = 10_000.0

    /// Focal length in pixels at 640x480: the 640x480 image is the 1280x960 sensor area halved.
    public var focalLength: Double { referenceDistance / (2 * referencePixelSize) }

    /// IR to RGB camera, millimetres.
    public var baseline: Double { 10 * rgbDistance }

    /// The 640x480 images' intrinsics (both cameras, once depth is registered to RGB). The
    /// principal point is the image centre, as libfreenect's `freenect_camera_to_world` takes it.
    public var intrinsics: CameraIntrinsics {
        CameraIntrinsics(
            fx: focalLength, fy: focalLength, cx: Double(Self.width / 2), cy: Double(Self.height / 2),
            referenceWidth: Self.width, referenceHeight: Self.height)
    }

    /// Millimetres of raw value `raw`, or nil where it means no depth: libfreenect's
    /// `freenect_raw_to_mm` (src/registration.c), truncated to whole millimetres as libfreenect's
    /// `FREENECT_DEPTH_MM` mode is, so that cloudgen's depth equals what that mode gives on a real camera.
    /// Less its offset, the raw value is how far (in quarter pixels) the projector's pattern has moved
    /// from where it appears on the reference plane; by similar triangles over the emitter baseline
    /// that displacement gives the distance.
    public func millimetres(raw: UInt16) -> UInt16? {
        guard raw < Self.noDepthRaw else { return nil }
        let displacement = ((Double(raw) - 4 * constShift) / 4 - 0.375) * referencePixelSize
        let mm = 10 * (displacement * referenceDistance / (emitterDistance - displacement) + referenceDistance)
        guard mm.isFinite, mm > 0, mm < Self.maximumMillimetres else { return nil }
        return UInt16(mm)
    }

    /// `millimetres(raw:)` for every 11-bit value, 0 for no depth: one lookup per pixel.
    public func millimetreTable() -> [UInt16] {
        (0..<2048).map { millimetres(raw: UInt16($0)) ?? 0 }
    }
}
