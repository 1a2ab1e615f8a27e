import CloudCore
import CloudImages
import SharedTestData
import XCTest

/// DecodedImage to CloudCore's ColorImage and DepthMap.
final class DecodedImageTests: XCTestCase {
    func testColorFromEveryLayout() throws {
        let gray = DecodedImage(width: 2, height: 1, channels: 1, samples: .uint8([10, 200]))
        XCTAssertEqual(try gray.colorImage(origin: "g").rgb, [10, 10, 10, 200, 200, 200])
        let grayAlpha = DecodedImage(width: 2, height: 1, channels: 2, samples: .uint8([10, 0, 200, 255]))
        XCTAssertEqual(try grayAlpha.colorImage(origin: "ga").rgb, [10, 10, 10, 200, 200, 200])
        let rgba = DecodedImage(width: 2, height: 1, channels: 4, samples: .uint8([1, 2, 3, 0, 4, 5, 6, 255]))
        XCTAssertEqual(try rgba.colorImage(origin: "rgba").rgb, [1, 2, 3, 4, 5, 6])
        // 16-bit to 8-bit rounds v * 255 / 65535: 257 * x gives x back, 128 rounds down, 129 up.
        let rgb16 = DecodedImage(width: 2, height: 1, channels: 3, samples: .uint16([0, 65535, 257 * 77, 128, 129, 32896]))
        XCTAssertEqual(try rgb16.colorImage(origin: "rgb16").rgb, [0, 255, 77, 0, 1, 128])
    }

    func testDepthNeedsOneChannelOf16Bits() throws {
        let depth = DecodedImage(width: 2, height: 1, channels: 1, samples: .uint16([0, 5000]))
        XCTAssertEqual(try depth.depthMap(unitsPerMetre: 5000, origin: "tum.png").metres, [0, 1])
        assertBadInput(naming: "rgb.png", containing: "16-bit single-channel") {
            try DecodedImage(width: 1, height: 1, channels: 3, samples: .uint16([1, 2, 3])).depthMap(unitsPerMetre: 1000, origin: "rgb.png")
        }
        assertBadInput(naming: "gray8.png", containing: "8-bit with 1 channel") {
            try DecodedImage(width: 1, height: 1, channels: 1, samples: .uint8([1])).depthMap(unitsPerMetre: 1000, origin: "gray8.png")
        }
        assertBadInput(naming: "scale.png", containing: "depth scale") {
            try depth.depthMap(unitsPerMetre: 0, origin: "scale.png")
        }
    }

    /// DecodedImage's fields are public and writable, so an inconsistent one is an error, not a trap.
    func testInconsistentImageIsAnError() {
        let wrong = DecodedImage(width: 3, height: 3, channels: 1, samples: .uint16([1, 2]))
        assertBadInput(naming: "wrong", containing: "holds 2 samples") { try wrong.depthMap(unitsPerMetre: 1000, origin: "wrong") }
        assertBadInput(naming: "wrong", containing: "holds 2 samples") { try wrong.colorImage(origin: "wrong") }
    }
}
