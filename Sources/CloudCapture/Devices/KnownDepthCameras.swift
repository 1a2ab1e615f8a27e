/// Depth cameras recognised by USB vendor and product id, and what can stream from them.
public enum KnownDepthCameras {
    /// The library a camera streams through.
    public enum Backend: String, Codable, Sendable {
        case libfreenect, openni2

        /// The Debian package that holds the library, for messages.
        public var package: String {
            switch self {
            case .libfreenect: return "libfreenect0.5"
            case .openni2: return "libopenni2-0"
            }
        }
    }

    public struct Model: Equatable, Sendable {
        public var name: String
        /// nil: no backend in this build streams it; `wouldServe` says what would.
        public var backend: Backend?
        public var wouldServe: String?
    }

    public static let microsoft: UInt16 = 0x045e
    public static let primeSense: UInt16 = 0x1d27
    public static let orbbec: UInt16 = 0x2bc5
    public static let intel: UInt16 = 0x8086

    /// The model at `vendor`:`product`, or nil for anything that is not a depth camera we know.
    /// A Kinect v1 is three USB devices (motor, audio, camera); only the camera is listed.
    public static func model(vendor: UInt16, product: UInt16) -> Model? {
        switch (vendor, product) {
        case (microsoft, 0x02ae): return Model(name: "Kinect v1 (Xbox 360)", backend: .libfreenect)
        case (microsoft, 0x02bf): return Model(name: "Kinect for Windows v1", backend: .libfreenect)
        case (microsoft, 0x02c4), (microsoft, 0x02d8):
            return Model(name: "Kinect v2", wouldServe: "libfreenect2 (not packaged for Debian 12)")
        case (microsoft, 0x097c):
            return Model(name: "Azure Kinect", wouldServe: "the Azure Kinect Sensor SDK (k4a; not packaged for Debian 12)")
        case (primeSense, 0x0600): return Model(name: "Asus Xtion Pro", backend: .openni2)
        case (primeSense, 0x0601): return Model(name: "Asus Xtion Pro Live / PrimeSense Carmine", backend: .openni2)
        case (primeSense, 0x0200), (primeSense, 0x0300), (primeSense, 0x0401), (primeSense, 0x0500),
            (primeSense, 0x0609), (primeSense, 0x1280), (primeSense, 0x2100):
            return Model(name: "PrimeSense sensor (product \(hex(product)))", backend: .openni2)
        case (orbbec, _):
            return Model(
                name: "Orbbec camera (product \(hex(product)))",
                wouldServe: "Orbbec's OpenNI2 driver (liborbbec.so in OpenNI2/Drivers; Debian's OpenNI2 lacks it)")
        case (intel, 0x0a80): return realSense("R200")
        case (intel, 0x0aa5): return realSense("SR300")
        case (intel, 0x0ad3): return realSense("D415")
        case (intel, 0x0b07): return realSense("D435")
        case (intel, 0x0b3a): return realSense("D435i")
        case (intel, 0x0b5c): return realSense("D455")
        case (intel, 0x0b64): return realSense("L515")
        default: return nil
        }
    }

    private static func realSense(_ model: String) -> Model {
        Model(name: "Intel RealSense \(model)", wouldServe: "librealsense2 (not packaged for Debian 12)")
    }

    static func hex(_ id: UInt16) -> String {
        let digits = String(id, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// The one-line fix for a camera the user may not open: a udev rule giving access to the
    /// vendor's devices (the Debian packages install rules for their own ids only, for group plugdev or video).
    public static func udevRule(vendor: UInt16) -> String {
        "add the udev rule SUBSYSTEM==\"usb\", ATTR{idVendor}==\"\(hex(vendor))\", MODE=\"0666\" to /etc/udev/rules.d/60-depth-cameras.rules, "
            + "run 'sudo udevadm control --reload-rules && sudo udevadm trigger' and plug the camera in again (Docs/devices.md)"
    }
}
