import CDevices
import CloudCore
import Foundation
import SafeIO

/// A camera that stopped delivering after streaming had begun (unplugged, or fakenect's recording
/// used up). Unlike a failure to open, the frames captured before it are good: the capture keeps them.
public struct DeviceStreamLost: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var description: String { message }
}

/// Ctrl-C during a capture: the first one asks the capture loop and device sources to stop after
/// the frame in hand, so that what was captured is written completely; a second one ends the process.
public enum CaptureInterrupt {
    public static func install() { cdv_interrupt_install() }
    public static var requested: Bool { cdv_interrupt_requested() != 0 }
}

/// What the device sources share: turning the C side's status into cloudgen's errors, and waiting
/// for frames without hanging.
enum DeviceSupport {
    /// How long a streaming camera may stay silent before it counts as gone. A Kinect or Xtion sends
    /// 30 frames a second; seconds of nothing means the cable, the hub or the camera failed.
    static let stallSeconds = 5.0
    /// One wait on the library, short enough for Ctrl-C to feel immediate.
    static let pollMilliseconds: Int32 = 100

    /// The error for a failed open or poll; `source` is the spec the user gave.
    static func error(_ status: cdv_status, source: String, udevAdvice: () -> String?) -> Error {
        let text = "\(source): \(status.text)"
        switch Int32(status.code) {
        case Int32(CDV_BAD_INPUT): return CloudError.badInput(text)
        case Int32(CDV_ENDED): return DeviceStreamLost(message: text)
        case Int32(CDV_PERMISSION), Int32(CDV_FAILED):
            // An open that failed for want of permission may say so only in libusb's terms; discovery can tell.
            return CloudError.io(text + (udevAdvice().map { "; \($0)" } ?? ""))
        default: return CloudError.io(text)
        }
    }

    /// Repeats `step` (one short poll of the device and an attempt at a frame) until it gives a
    /// frame, Ctrl-C was pressed (nil), or the device stayed silent for `stallSeconds`.
    static func nextFrame<T>(source: String, step: () throws -> T?) throws -> T? {
        let start = DispatchTime.now().uptimeNanoseconds
        while !CaptureInterrupt.requested {
            if let frame = try step() { return frame }
            if Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 > stallSeconds {
                throw DeviceStreamLost(message: "\(source): no frame for \(Int(stallSeconds)) s; the camera stopped streaming (unplugged?)")
            }
        }
        return nil
    }

    /// A frame the C side handed over, as bytes.
    static func bytes(_ frame: cdv_frame) -> [UInt8] {
        guard let data = frame.data, frame.size > 0 else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: data, count: frame.size))
    }
}
