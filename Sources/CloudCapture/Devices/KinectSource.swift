import CDevices
import CloudCore

/// A Kinect v1 through libfreenect (`--source kinect[:INDEX]`): 640x480 raw 11-bit depth and RGB,
/// paired by the camera's timestamps; depth converted to millimetres and registered to the RGB
/// camera here (KinectCalibration.swift, KinectRegistration.swift), so frames come out as
/// millimetre depth aligned with the color image, with the IR camera's factory intrinsics.
/// fakenect's playback (`FAKENECT_PATH`, its library first on `LD_LIBRARY_PATH`) runs through the
/// same code: that is how the tests drive it.
public final class KinectSource: DepthSource {
    public let index: Int
    public let calibration: KinectCalibration
    public let knowsPose = false
    public private(set) var warnings: [CloudWarning] = []
    public var name: String { "kinect:\(index)" }

    private let device: OpaquePointer
    private let table: [UInt16]
    private var pairer = FramePairer<[UInt8], [UInt8]>(clock: .kinectTicks)

    public init(index: Int) throws {
        self.index = index
        let spec = "kinect:\(index)"
        let defaults = KinectCalibration.defaults
        var constants = cdv_kinect_calibration(
            dcmos_emitter_dist: defaults.emitterDistance, dcmos_rcmos_dist: defaults.rgbDistance,
            reference_distance: defaults.referenceDistance,
            reference_pixel_size: defaults.referencePixelSize,
            const_shift: defaults.constShift, from_device: 0)
        var status = cdv_status()
        guard let device = cdv_kinect_open(Int32(index), &constants, &status) else {
            throw DeviceSupport.error(status, source: spec) { USBDiscovery.permissionAdvice(backend: .libfreenect) }
        }
        self.device = device
        calibration = KinectCalibration(
            emitterDistance: constants.dcmos_emitter_dist, rgbDistance: constants.dcmos_rcmos_dist,
            referenceDistance: constants.reference_distance,
            referencePixelSize: constants.reference_pixel_size,
            constShift: constants.const_shift, fromDevice: constants.from_device != 0)
        table = calibration.millimetreTable()
        if !calibration.fromDevice {
            warnings.append(
                CloudWarning(
                    .source(spec),
                    "this libfreenect cannot read the camera's calibration (fakenect playback?); using libfreenect's defaults (focal length \(Int(calibration.focalLength.rounded())) px, RGB camera \(calibration.baseline) mm beside the IR camera)"
                ))
        }
    }

    deinit {
        cdv_kinect_close(device)
    }

    /// The next depth + color pair; nil after Ctrl-C. A camera that stops streaming throws `DeviceStreamLost`.
    public func nextFrame() throws -> CapturedFrame? {
        guard let pair = try DeviceSupport.nextFrame(source: name, step: step) else { return nil }
        let depth = pair.depth.withUnsafeBytes { raw in
            calibration.registeredMillimetres(raw: raw.bindMemory(to: UInt16.self), table: table)
        }
        let w = KinectCalibration.width
        let h = KinectCalibration.height
        return CapturedFrame(
            depth: .init(width: w, height: h, encoding: .uint16(unitsPerMetre: 1000), data: depth),
            color: .init(width: w, height: h, layout: .rgb8, planes: [pair.color]),
            intrinsics: calibration.intrinsics, pose: nil,
            timestamp: Double(pair.stamp) / pairer.clock.ticksPerSecond)
    }

    private func step() throws -> (depth: [UInt8], color: [UInt8], stamp: UInt64)? {
        var status = cdv_status()
        guard cdv_kinect_poll(device, DeviceSupport.pollMilliseconds, &status) == 0 else {
            let error = DeviceSupport.error(status, source: name) { nil }
            // Streaming had begun: whatever went wrong now, the camera is gone for this capture.
            throw error as? DeviceStreamLost ?? DeviceStreamLost(message: "\(error)")
        }
        var frame = cdv_frame()
        var pair: (depth: [UInt8], color: [UInt8], stamp: UInt64)?
        if cdv_kinect_take(device, Int32(CDV_DEPTH), &frame) != 0 {
            pair = pairer.add(depth: DeviceSupport.bytes(frame), stamp: frame.timestamp)
        }
        if cdv_kinect_take(device, Int32(CDV_COLOR), &frame) != 0 {
            pair = pairer.add(color: DeviceSupport.bytes(frame), stamp: frame.timestamp) ?? pair
        }
        return pair
    }
}
