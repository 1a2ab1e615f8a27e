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

    func run() throws {
        let report = try DeviceReport.discover()
        if json {
            try Console.printJSON(report)
            return
        }
        guard !report.devices.isEmpty else {
            print("no depth camera found (\(report.usbDevices) USB device\(report.usbDevices == 1 ? "" : "s") checked)")
            return
        }
        for camera in report.devices {
            var line = "\(camera.model)  \(camera.vendorID):\(camera.productID)  USB \(camera.port)"
            if let serial = camera.serial { line += "  serial \(serial)" }
            if let source = camera.source { line += "  --source \(source)" }
            if let problem = camera.problem { line += "  (\(problem))" }
            print(line)
        }
    }
}
