import CloudCapture
import CloudCore
import XCTest

/// The Kinect's raw-to-millimetre conversion and registration against values worked out by hand
/// from libfreenect's formula and constants.
final class KinectDepthModelTests: XCTestCase {
    let k = KinectCalibration.defaults

    func testRawToMillimetresFollowsLibfreenectsFormula() {
        // raw 800 = 4 * const_shift: displacement -0.375 * 0.1042 mm,
        // mm = 10 * (d * 120 / (7.5 - d) + 120) = 1193.76 -> 1193 (truncated, as libfreenect's table).
        XCTAssertEqual(k.millimetres(raw: 800), 1193)
        // raw 1000: displacement (50 - 0.375) * 0.1042 = 5.171 mm -> 10 * (5.171 * 120 / 2.329 + 120) = 3864.2.
        XCTAssertEqual(k.millimetres(raw: 1000), 3864)
        XCTAssertNil(k.millimetres(raw: 2047), "2047 is the camera's no-depth value")
        // The formula passes 10 m near raw 1055 and reaches its pole (displacement 7.5 mm) near
        // raw 1089; beyond 10 m there is no depth.
        XCTAssertNil(k.millimetres(raw: 1090))
        XCTAssertNil(k.millimetres(raw: 1500))
        let table = k.millimetreTable()
        XCTAssertEqual(table.count, 2048)
        let valid = table.enumerated().filter { $0.element > 0 }.map(\.element)
        XCTAssertEqual(valid, valid.sorted(), "depth grows with the raw value")
        XCTAssertEqual(table[2047], 0)
    }

    func testIntrinsicsComeFromTheZeroPlaneConstants() {
        // f = 120 mm / (2 * 0.1042 mm) at 640x480.
        XCTAssertEqual(k.focalLength, 575.816, accuracy: 0.001)
        XCTAssertEqual(
            k.intrinsics,
            CameraIntrinsics(
                fx: k.focalLength, fy: k.focalLength, cx: 320, cy: 240,
                referenceWidth: 640, referenceHeight: 480))
        XCTAssertEqual(k.baseline, 23, accuracy: 1e-9)
    }

    private func register(_ raw: [UInt16]) -> [UInt16] {
        let bytes = raw.withUnsafeBufferPointer { k.registeredMillimetres(raw: $0, table: k.millimetreTable()) }
        return stride(from: 0, to: bytes.count, by: 2).map { UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8 }
    }

    /// A flat wall at raw 800 (1193 mm) moves left by f * 23 mm / 1193 mm = 11.1 -> 11 columns.
    func testRegistrationShiftsByTheParallaxOfTheRGBCamera() {
        let out = register([UInt16](repeating: 800, count: 640 * 480))
        for v in [0, 240, 479] {
            let row = Array(out[v * 640..<(v + 1) * 640])
            XCTAssertTrue(row[0..<629].allSatisfy { $0 == 1193 }, "row \(v)")
            XCTAssertTrue(row[629...].allSatisfy { $0 == 0 }, "row \(v): the rightmost 11 columns see past the IR camera's view")
        }
    }

    /// Where a near and a far pixel land on one RGB pixel, the near one hides the far one.
    func testRegistrationKeepsTheNearerSurface() {
        var raw = [UInt16](repeating: 2047, count: 640 * 480)
        raw[100] = 1000  // 3864 mm: shifts 3.43 -> 3 columns, to 97
        raw[108] = 800  // 1193 mm: shifts 11, to 97 as well
        let out = register(raw)
        XCTAssertEqual(out[97], 1193)
        XCTAssertEqual(out.filter { $0 != 0 }.count, 1)
    }
}
