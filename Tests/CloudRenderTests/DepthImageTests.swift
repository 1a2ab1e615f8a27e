import CloudCore
import XCTest

@testable import CloudRender

/// The depth image: jet from red (nearest) to blue (farthest), black where there is no depth,
/// the blend weight, and the scale bar's round ticks.
final class DepthImageTests: XCTestCase {
    /// 4x2 depth: a ramp 1...4 m on the top row, no depth on the bottom row's first pixel.
    private let depth = DepthMap(width: 4, height: 2, metres: [1, 2, 3, 4, 0, 2.5, .nan, 4])
    private let color = ColorImage(width: 4, height: 2, rgb: [UInt8](repeating: 100, count: 24))

    private func pixel(_ image: ColorImage, _ x: Int, _ y: Int, factor: Int) -> [UInt8] {
        let i = 3 * ((y * factor + factor / 2) * image.width + x * factor + factor / 2)
        return Array(image.rgb[i..<(i + 3)])
    }

    func testColormapRunsRedNearToBlueFar() throws {
        let image = try DepthImage.render(depth: depth, origin: "test")
        let factor = image.width / 4
        XCTAssertEqual(factor, DepthImage.minimumWidth / 4, "small maps are enlarged by a whole factor")
        XCTAssertEqual(pixel(image, 0, 0, factor: factor), [128, 0, 0], "nearest: dark red")
        XCTAssertEqual(pixel(image, 3, 0, factor: factor), [0, 0, 128], "farthest: dark blue")
        XCTAssertEqual(pixel(image, 0, 1, factor: factor), [0, 0, 0], "no depth: black")
        XCTAssertEqual(pixel(image, 2, 1, factor: factor), [0, 0, 0], "NaN depth: black")
        XCTAssertGreaterThan(image.height, 2 * factor, "the scale bar sits below the image")
    }

    func testBlendWeighsColormapOverColor() throws {
        let half = try DepthImage.render(depth: depth, color: color, blend: 0.5, origin: "test")
        let none = try DepthImage.render(depth: depth, color: color, blend: 0, origin: "test")
        let factor = half.width / 4
        XCTAssertEqual(pixel(none, 1, 0, factor: factor), [100, 100, 100], "weight 0 shows the color alone")
        XCTAssertEqual(pixel(half, 0, 0, factor: factor), [114, 50, 50], "(100 + 128) / 2, 100 / 2, 100 / 2")
        XCTAssertEqual(pixel(half, 0, 1, factor: factor), [100, 100, 100], "no depth: the color shows through")
        XCTAssertThrowsError(try DepthImage.render(depth: depth, color: nil, blend: 0.5, origin: "test"))
    }

    /// A tall, narrow map is enlarged only as far as the picture and its scale bar fit the size
    /// limit; one too tall even at its own size is refused before anything is drawn.
    func testTallDepthMapFitsTheSizeLimit() throws {
        let tall = DepthMap(width: 8, height: 2048, metres: (0..<(8 * 2048)).map { Float(1 + $0 / 8) / 1000 })
        let image = try DepthImage.render(depth: tall, origin: "test")
        XCTAssertLessThanOrEqual(image.height, ImageLimits.maxSide)
        XCTAssertEqual(image.width % 8, 0, "a whole factor")
        let factor = image.width / 8
        XCTAssertEqual(factor, 7, "16384 less the scale bar, over 2048 rows")
        XCTAssertEqual(pixel(image, 0, 0, factor: factor), [128, 0, 0], "nearest: dark red")
        XCTAssertEqual(pixel(image, 7, 2047, factor: factor), [0, 0, 128], "farthest: dark blue")
        let tooTall = DepthMap(width: 2, height: ImageLimits.maxSide, metres: [Float](repeating: 1, count: 2 * ImageLimits.maxSide))
        XCTAssertThrowsError(try DepthImage.render(depth: tooTall, origin: "tall.png")) { error in
            XCTAssertTrue("\(error)".contains("tall.png"), "\(error)")
        }
    }

    func testScaleBarTicksAreRoundMetres() {
        XCTAssertEqual(ScaleBar(range: 1...4, width: 640).ticks.values, [1, 2, 3, 4])
        XCTAssertEqual(ScaleBar(range: 1...4, width: 640).ticks.decimals, 0)
        XCTAssertEqual(ScaleBar(range: 1.2...1.9, width: 640).ticks.values, [1.2, 1.4, 1.6, 1.8])
        XCTAssertEqual(ScaleBar(range: 1.2...1.9, width: 640).ticks.decimals, 1)
        XCTAssertEqual(ScaleBar(range: 0.43...2.9, width: 640).ticks.values, [0.5, 1, 1.5, 2, 2.5])
        XCTAssertEqual(ScaleBar(range: 0.5...20, width: 640).ticks.values, [5, 10, 15, 20])
        XCTAssertEqual(ScaleBar(range: 0.5...20, width: 640).ticks.decimals, 0)
    }
}
