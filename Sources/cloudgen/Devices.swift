import ArgumentParser
import CloudCapture
import Foundation

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the depth cameras attached over USB and what can capture from them.",
        discussion: """
            Cameras are recognised by USB vendor and product id: Kinect v1 (libfreenect), Asus Xtion
            and PrimeSense (OpenNI2), and Kinect v2, Azure Kinect, Orbbec and Intel RealSense, which
            this build recognises but cannot stream from. Each line gives the --source spec to use.
            No camera is not an error: the list is empty and the exit status 0.
            """)

    @Flag(help: "Print one JSON object, {\"devices\": [...], \"usbDevices\": N}, on stdout, nothing else.")
    var json = false

    struct Report: Encodable {
        var devices: [DiscoveredCamera]
        /// All USB devices seen: 0 usually means no USB access at all (a container without /dev/bus/usb).
        var usbDevices: Int
    }

    func run() throws {
        let all = try USBDiscovery.devices()
        let cameras = USBDiscovery.cameras(in: all, installed: USBDiscovery.isInstalled)
        if json {
            try Console.printJSON(Report(devices: cameras, usbDevices: all.count))
            return
        }
        guard !cameras.isEmpty else {
            print("no depth camera found (\(all.count) USB device\(all.count == 1 ? "" : "s") checked)")
            return
        }
        for camera in cameras {
            var line = "\(camera.model)  \(camera.vendorID):\(camera.productID)  USB \(camera.port)"
            if let serial = camera.serial { line += "  serial \(serial)" }
            if let source = camera.source { line += "  --source \(source)" }
            if let problem = camera.problem { line += "  (\(problem))" }
            print(line)
        }
    }
}
