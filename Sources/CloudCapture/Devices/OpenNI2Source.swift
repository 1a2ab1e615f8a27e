import CDevices
import CloudCore
import Foundation
import SafeIO

/// An OpenNI2 device or `.oni` recording (`--source openni2[:URI|FILE.oni]`) through libOpenNI2's C
/// API: PrimeSense Carmine, Asus Xtion and other PS1080 cameras (Debian's OpenNI2 drivers), and
/// recordings made with OpenNI2 (NiViewer, PCL's openni2 tools). Depth is registered to color by
/// the device where it supports it (the recording's setting for `.oni` files); frames are paired
/// by the streams' microsecond timestamps. Intrinsics come from the fields of view the streams report.
public final class OpenNI2Source: DepthSource {
    /// The URI or file given after `openni2:`, nil for the first device.
    public let target: String?
    public let isRecording: Bool
    public let knowsPose = false
    public private(set) var warnings: [CloudWarning] = []
    public var name: String { target.map { "openni2:\($0)" } ?? "openni2" }

    private let device: OpaquePointer
    private let info: cdv_openni2_info
    private var pairer = FramePairer<DeviceFrame, DeviceFrame>(clock: .microseconds)

    /// Whether `target` names a recording rather than a device URI.
    public static func isRecording(_ target: String) -> Bool {
        target.lowercased().hasSuffix(".oni")
    }

    public init(target: String?) throws {
        self.target = target
        isRecording = target.map(Self.isRecording) ?? false
        let spec = target.map { "openni2:\($0)" } ?? "openni2"
        if let target, isRecording {
            guard DatasetFiles.isFile(target) else {
                throw CloudError.badInput(.file(target), "no such file (expected an OpenNI2 .oni recording)")
            }
        }
        var info = cdv_openni2_info()
        var status = cdv_status()
        guard let device = cdv_openni2_open(target, &info, &status) else {
            if let target, isRecording, status.code == CDV_NO_DEVICE || status.code == CDV_BAD_INPUT {
                throw CloudError.badInput(.file(target), "not a readable OpenNI2 recording (\(status.text))")
            }
            throw DeviceSupport.error(status, source: spec) { USBDiscovery.permissionAdvice(backend: .openni2) }
        }
        self.device = device
        self.info = info
        if info.has_color == 0 {
            warnings.append(CloudWarning(.source(spec), "no color stream; the clouds have no color"))
        } else if info.registered == 0 {
            warnings.append(
                CloudWarning(
                    .source(spec),
                    "depth is not registered to color (\(isRecording ? "the recording was made without registration" : "the device does not support it")); colors are sampled as if both cameras saw from one point"
                ))
        }
    }

    deinit {
        cdv_openni2_close(device)
    }

    public func nextFrame() throws -> CapturedFrame? {
        let pair: (depth: DeviceFrame, color: DeviceFrame, stamp: UInt64)?
        do {
            pair = try DeviceSupport.nextFrame(source: name, step: step)
        } catch is DeviceStreamLost where isRecording {
            // A recording that plays once simply stops sending: its end.
            return nil
        }
        guard let pair else { return nil }
        let depth = pair.depth
        let color = info.has_color != 0 ? pair.color : nil
        return CapturedFrame(
            depth: .init(
                width: depth.width, height: depth.height,
                encoding: .uint16(unitsPerMetre: Double(info.depth_units_per_metre)), data: depth.bytes),
            color: color.map { .init(width: $0.width, height: $0.height, layout: .rgb8, planes: [$0.bytes]) },
            intrinsics: try intrinsics(width: depth.width, height: depth.height), pose: nil,
            timestamp: Double(pair.stamp) / pairer.clock.ticksPerSecond)
    }

    /// Pinhole intrinsics from the fields of view, the principal point at the image centre.
    private func intrinsics(width: Int, height: Int) throws -> CameraIntrinsics {
        let h = Double(info.horizontal_fov)
        let v = Double(info.vertical_fov)
        guard h > 0, h < .pi, v > 0, v < .pi else {
            throw CloudError.io("\(name): OpenNI2 reports no usable field of view (\(h), \(v) rad), so the cloud cannot be scaled")
        }
        return CameraIntrinsics(
            fx: Double(width) / 2 / tan(h / 2), fy: Double(height) / 2 / tan(v / 2),
            cx: Double(width - 1) / 2, cy: Double(height - 1) / 2,
            referenceWidth: width, referenceHeight: height)
    }

    private func step() throws -> (depth: DeviceFrame, color: DeviceFrame, stamp: UInt64)? {
        var status = cdv_status()
        let polled = cdv_openni2_poll(device, DeviceSupport.pollMilliseconds, &status)
        if polled < 0 {
            let error = DeviceSupport.error(status, source: name) { nil }
            throw error is CloudError && status.code == CDV_BAD_INPUT ? error : DeviceStreamLost(message: "\(error)")
        }
        var frame = cdv_frame()
        if cdv_openni2_take(device, Int32(CDV_DEPTH), &frame) != 0 {
            let copy = DeviceFrame(frame)
            // A depth-only device pairs each depth frame with nothing.
            if info.has_color == 0 { return (copy, copy, frame.timestamp) }
            if let pair = pairer.add(depth: copy, stamp: frame.timestamp) { return pair }
        }
        if cdv_openni2_take(device, Int32(CDV_COLOR), &frame) != 0 {
            return pairer.add(color: DeviceFrame(frame), stamp: frame.timestamp)
        }
        return nil
    }
}

/// A frame's size and bytes, copied out of the C side's slot.
struct DeviceFrame {
    var width: Int
    var height: Int
    var bytes: [UInt8]

    init(_ frame: cdv_frame) {
        width = Int(frame.width)
        height = Int(frame.height)
        bytes = DeviceSupport.bytes(frame)
    }
}
