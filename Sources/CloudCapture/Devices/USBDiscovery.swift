import CDevices
import CloudCore
import SafeIO

/// One USB device as libusb lists it.
public struct USBDevice: Equatable, Sendable {
    public enum Access: Equatable, Sendable {
        /// Opened (to read the serial), or not tried: only recognised cameras are opened.
        case ok
        /// The operating system refused: a udev rule is missing.
        case denied
        case failed
    }

    public var vendorID: UInt16
    public var productID: UInt16
    public var bus: Int
    public var address: Int
    /// The port path from the root hub, e.g. [2, 3] for "2.3".
    public var ports: [Int]
    public var serial: String?
    public var access: Access

    public init(vendorID: UInt16, productID: UInt16, bus: Int, address: Int, ports: [Int], serial: String?, access: Access) {
        self.vendorID = vendorID
        self.productID = productID
        self.bus = bus
        self.address = address
        self.ports = ports
        self.serial = serial
        self.access = access
    }
}

/// A recognised depth camera: what `cloudgen devices` lists, and what capture picks without `--source`.
public struct DiscoveredCamera: Equatable, Encodable, Sendable {
    public var model: String
    public var vendorID: String
    public var productID: String
    public var bus: Int
    /// "BUS-PORT.PORT", as the kernel names USB devices (/sys/bus/usb/devices).
    public var port: String
    public var serial: String?
    /// The library that streams it, or nil when none in this build does.
    public var backend: String?
    /// The `--source` spec that captures from it, when a backend is installed.
    public var source: String?
    /// Why it cannot be used as it is: a missing library, what would serve it, a udev rule to add.
    public var problem: String?

    enum CodingKeys: String, CodingKey {
        case model
        case vendorID = "vendorId"
        case productID = "productId"
        case bus, port, serial, backend, source, problem
    }

    /// Every key present, null when unknown: scripts can index without checking.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(model, forKey: .model)
        try c.encode(vendorID, forKey: .vendorID)
        try c.encode(productID, forKey: .productID)
        try c.encode(bus, forKey: .bus)
        try c.encode(port, forKey: .port)
        try c.encode(serial, forKey: .serial)
        try c.encode(backend, forKey: .backend)
        try c.encode(source, forKey: .source)
        try c.encode(problem, forKey: .problem)
    }
}

/// Finds depth cameras on USB through libusb, without opening anything but recognised cameras.
public enum USBDiscovery {
    /// Every USB device. Fails (exit 3) only when USB itself cannot be used.
    public static func devices() throws -> [USBDevice] {
        var status = cdv_status()
        var buffer = [cdv_usb_device](repeating: cdv_usb_device(), count: 256)
        let count = cdv_usb_list(
            &buffer, Int32(buffer.count),
            { vendor, product in
                KnownDepthCameras.model(vendor: vendor, product: product) == nil ? 0 : 1
            }, &status)
        guard count >= 0 else { throw CloudError.io(status.text) }
        return buffer.prefix(Int(min(count, Int32(buffer.count)))).map { d in
            let ports = withUnsafeBytes(of: d.ports) { Array($0.prefix(Int(d.port_count))).map(Int.init) }
            let serial = withUnsafeBytes(of: d.serial) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let access: USBDevice.Access = d.open_status == CDV_OK ? .ok : d.open_status == CDV_PERMISSION ? .denied : .failed
            return USBDevice(
                vendorID: d.vendor_id, productID: d.product_id, bus: Int(d.bus), address: Int(d.address),
                ports: ports, serial: serial.isEmpty ? nil : serial, access: access)
        }
    }

    /// The recognised cameras among `devices`, in USB order, with their backend and source spec.
    /// `installed` says whether a backend's library loads. Kinects are numbered as libfreenect numbers
    /// them (its own walk of the same libusb list); OpenNI2 devices by their URI-less first-device spec.
    public static func cameras(in devices: [USBDevice], installed: (KnownDepthCameras.Backend) -> Bool) -> [DiscoveredCamera] {
        var kinects = 0
        return devices.compactMap { device in
            guard let model = KnownDepthCameras.model(vendor: device.vendorID, product: device.productID) else { return nil }
            var camera = DiscoveredCamera(
                model: model.name, vendorID: KnownDepthCameras.hex(device.vendorID),
                productID: KnownDepthCameras.hex(device.productID), bus: device.bus,
                port: "\(device.bus)-" + device.ports.map(String.init).joined(separator: "."),
                serial: device.serial, backend: model.backend?.rawValue)
            if let backend = model.backend {
                let spec = backend == .libfreenect ? "kinect:\(kinects)" : "openni2"
                if backend == .libfreenect { kinects += 1 }
                if !installed(backend) {
                    camera.problem = "\(backend.rawValue) is not installed (Debian package \(backend.package))"
                } else {
                    camera.source = spec
                }
            } else {
                camera.problem = "no backend in this build streams it; \(model.wouldServe ?? "none known") would"
            }
            if device.access == .denied {
                let rule = "permission denied opening it; " + KnownDepthCameras.udevRule(vendor: device.vendorID)
                camera.problem = camera.problem.map { "\($0); \(rule)" } ?? rule
            }
            return camera
        }
    }

    /// The cameras attached now.
    public static func cameras() throws -> [DiscoveredCamera] {
        try cameras(in: devices(), installed: isInstalled)
    }

    public static func isInstalled(_ backend: KnownDepthCameras.Backend) -> Bool {
        switch backend {
        case .libfreenect: return cdv_kinect_installed() != 0
        case .openni2: return cdv_openni2_installed() != 0
        }
    }

    /// What capture uses without `--source`: the first camera a backend here can stream from and
    /// the user may open; nil when there is none.
    public static func defaultSource(among cameras: [DiscoveredCamera]) -> String? {
        cameras.first { $0.source != nil && $0.problem == nil }?.source
    }

    /// The `--source` spec for capture without one: the first attached camera that can stream.
    /// Without one, exit 3 naming `--source synthetic` (never a silent fallback to simulated data),
    /// and the recognised cameras that cannot be used, with why.
    public static func defaultSourceSpec() throws -> SourceSpec {
        let found = try cameras()
        if let spec = defaultSource(among: found) { return try SourceSpec(parsing: spec) }
        let unusable = found.map { "\($0.model) at USB \($0.port): \($0.problem ?? "not streamable")" }
        throw CloudError.io(
            "no depth camera found" + (unusable.isEmpty ? "" : " that this build can stream from (\(unusable.joined(separator: "; ")))")
                + "; use --source synthetic to capture from the built-in simulated camera")
    }

    /// The udev advice for a backend's camera that libusb may not open, when discovery finds one.
    static func permissionAdvice(backend: KnownDepthCameras.Backend) -> String? {
        let denied = (try? devices())?.first { device in
            device.access == .denied && KnownDepthCameras.model(vendor: device.vendorID, product: device.productID)?.backend == backend
        }
        return denied.map { "permission denied opening the camera; " + KnownDepthCameras.udevRule(vendor: $0.vendorID) }
    }
}

/// `cloudgen devices --json` and GET /v1/devices: the cameras, and how many USB devices were seen.
public struct DeviceReport: Encodable, Sendable {
    public var devices: [DiscoveredCamera]
    /// All USB devices seen: 0 usually means no USB access at all (a container without /dev/bus/usb).
    public var usbDevices: Int

    public static func discover() throws -> DeviceReport {
        let all = try USBDiscovery.devices()
        return DeviceReport(devices: USBDiscovery.cameras(in: all, installed: USBDiscovery.isInstalled), usbDevices: all.count)
    }
}
