import CloudCapture
import XCTest

final class USBDiscoveryTests: XCTestCase {
    private func device(_ vendor: UInt16, _ product: UInt16, ports: [Int] = [1], access: USBDevice.Access = .ok) -> USBDevice {
        USBDevice(
            vendorID: vendor, productID: product, bus: 2, address: 5, ports: ports, serial: access == .ok ? "A00366" : nil, access: access)
    }

    func testRecognisesDepthCamerasAndSaysWhatServesThem() {
        let devices = [
            device(0x1d6b, 0x0002),  // a root hub: not a camera
            device(0x045e, 0x02b0),  // the Kinect's motor: not listed
            device(0x045e, 0x02ae, ports: [1, 3]),  // Kinect v1 camera
            device(0x045e, 0x02c4),  // Kinect v2
            device(0x1d27, 0x0601),  // Xtion Pro Live
            device(0x8086, 0x0b07),  // RealSense D435
            device(0x045e, 0x02ae, ports: [4])  // a second Kinect v1
        ]
        let cameras = USBDiscovery.cameras(in: devices) { _ in true }
        XCTAssertEqual(
            cameras.map(\.model),
            [
                "Kinect v1 (Xbox 360)", "Kinect v2", "Asus Xtion Pro Live / PrimeSense Carmine",
                "Intel RealSense D435", "Kinect v1 (Xbox 360)"
            ])
        XCTAssertEqual(cameras.map(\.source), ["kinect:0", nil, "openni2", nil, "kinect:1"])
        XCTAssertEqual(cameras[0].port, "2-1.3")
        XCTAssertEqual(cameras[0].serial, "A00366")
        XCTAssertEqual(cameras[0].vendorID, "045e")
        XCTAssertEqual(cameras[1].problem, "no backend in this build streams it; libfreenect2 (not packaged for Debian 12) would")
        XCTAssertEqual(cameras[3].problem, "no backend in this build streams it; librealsense2 (not packaged for Debian 12) would")
        XCTAssertEqual(USBDiscovery.defaultSource(among: cameras), "kinect:0")
    }

    func testAPermissionFailureNamesTheUdevRule() {
        let cameras = USBDiscovery.cameras(in: [device(0x045e, 0x02ae, access: .denied), device(0x1d27, 0x0600)]) { _ in true }
        let problem = try? XCTUnwrap(cameras[0].problem)
        XCTAssertTrue(
            problem?.hasPrefix(
                "permission denied opening it; add the udev rule SUBSYSTEM==\"usb\", ATTR{idVendor}==\"045e\", MODE=\"0666\"") ?? false,
            problem ?? "no problem reported")
        // The camera that may not be opened is passed over for the next one.
        XCTAssertEqual(USBDiscovery.defaultSource(among: cameras), "openni2")
    }

    func testAMissingBackendLibraryIsReported() {
        let cameras = USBDiscovery.cameras(in: [device(0x045e, 0x02ae)]) { $0 != .libfreenect }
        XCTAssertNil(cameras[0].source)
        XCTAssertEqual(cameras[0].problem, "libfreenect is not installed (Debian package libfreenect0.5)")
        XCTAssertNil(USBDiscovery.defaultSource(among: cameras))
    }

    func testNoCameraNoDefault() {
        XCTAssertEqual(USBDiscovery.cameras(in: [device(0x1d6b, 0x0003)]) { _ in true }, [])
        XCTAssertNil(USBDiscovery.defaultSource(among: []))
    }
}
