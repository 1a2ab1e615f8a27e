import CloudCore
import XCTest

final class ColorConversionTests: XCTestCase {
    func rgb(_ f: YUVFormat, _ y: UInt8, _ cb: UInt8, _ cr: UInt8) -> [UInt8] {
        let (r, g, b) = f.rgb(y: y, cb: cb, cr: cr)
        return [r, g, b]
    }

    func testFullRangeBT601AgainstHandComputedValues() {
        let f = YUVFormat(range: .full, matrix: .bt601)
        XCTAssertEqual(rgb(f, 128, 128, 128), [128, 128, 128])
        XCTAssertEqual(rgb(f, 0, 128, 128), [0, 0, 0])
        XCTAssertEqual(rgb(f, 255, 128, 128), [255, 255, 255])
        // R = 76 + 1.402 * 127 = 254.05; G = 76 + 0.344136 * 43 - 0.714136 * 127 = 0.10; B = 76 - 1.772 * 43 < 0
        XCTAssertEqual(rgb(f, 76, 85, 255), [254, 0, 0])
    }

    func testVideoRangeStretchesSixteenTo235() {
        let f = YUVFormat(range: .video, matrix: .bt601)
        XCTAssertEqual(rgb(f, 16, 128, 128), [0, 0, 0])
        XCTAssertEqual(rgb(f, 235, 128, 128), [255, 255, 255])
        // (126 - 16) * 255 / 219 = 128.08
        XCTAssertEqual(rgb(f, 126, 128, 128), [128, 128, 128])
        // The same code values read as full range are visibly different: the classic washed-out bug.
        XCTAssertEqual(rgb(YUVFormat(range: .full, matrix: .bt601), 16, 128, 128), [16, 16, 16])
    }

    func testBT709UsesItsOwnCoefficients() {
        let f = YUVFormat(range: .full, matrix: .bt709)
        // R = 128 + 1.5748 * 127 > 255; G = 128 - 0.468124 * 127 = 68.55; B = 128
        XCTAssertEqual(rgb(f, 128, 128, 255), [255, 69, 128])
        // BT.601 gives G = 128 - 0.714136 * 127 = 37.3 for the same samples.
        XCTAssertEqual(rgb(YUVFormat(range: .full, matrix: .bt601), 128, 128, 255)[1], 37)
    }

    func testEncodeDecodeRoundTripWithinRounding() {
        for range in [YUVFormat.Range.full, .video] {
            for matrix in [YUVFormat.Matrix.bt601, .bt709] {
                let f = YUVFormat(range: range, matrix: matrix)
                for c in stride(from: 0, to: 256 * 256 * 256, by: 9973) {
                    let (r, g, b) = (UInt8(c >> 16), UInt8((c >> 8) & 255), UInt8(c & 255))
                    let e = f.ycbcr(r: r, g: g, b: b)
                    let (r2, g2, b2) = f.rgb(y: e.y, cb: e.cb, cr: e.cr)
                    let tolerance = range == .full ? 2 : 3
                    XCTAssertLessThanOrEqual(abs(Int(r2) - Int(r)), tolerance, "\(f) \(r),\(g),\(b)")
                    XCTAssertLessThanOrEqual(abs(Int(g2) - Int(g)), tolerance, "\(f) \(r),\(g),\(b)")
                    XCTAssertLessThanOrEqual(abs(Int(b2) - Int(b)), tolerance, "\(f) \(r),\(g),\(b)")
                }
            }
        }
    }

    func testBiPlanarChromaCoversTwoByTwoBlocksIncludingOddEdges() throws {
        // 3x3 luma all 128; chroma plane is 2x2 samples: top-left block neutral, top-right red-ish
        // (Cr 255), bottom row blue-ish (Cb 255).
        let y = [UInt8](repeating: 128, count: 9)
        let cbcr: [UInt8] = [128, 128, 128, 255, 255, 128, 255, 128]
        let img = try y.withUnsafeBytes { yb in
            try cbcr.withUnsafeBytes { cb in
                try ColorImage(
                    yPlane: yb, cbcrPlane: cb, width: 3, height: 3,
                    format: YUVFormat(range: .full, matrix: .bt601), origin: "t")
            }
        }
        func px(_ x: Int, _ y: Int) -> [UInt8] { Array(img.rgb[(3 * (y * 3 + x))..<(3 * (y * 3 + x) + 3)]) }
        XCTAssertEqual(px(0, 0), [128, 128, 128])
        XCTAssertEqual(px(1, 1), [128, 128, 128])
        XCTAssertEqual(px(2, 0)[0], 255)
        XCTAssertEqual(px(2, 1)[0], 255)
        XCTAssertEqual(px(0, 2)[2], 255)
        XCTAssertEqual(px(2, 2)[2], 255)
    }

    func testBGRAAndPaddedRGB() throws {
        let bgra: [UInt8] = [1, 2, 3, 255, 4, 5, 6, 255]
        let a = try bgra.withUnsafeBytes { try ColorImage(bgra: $0, width: 2, height: 1, origin: "t") }
        XCTAssertEqual(a.rgb, [3, 2, 1, 6, 5, 4])
        let padded: [UInt8] = [9, 8, 7, 0, 6, 5, 4, 0]
        let b = try padded.withUnsafeBytes { try ColorImage(rgb: $0, width: 1, height: 2, bytesPerRow: 4, origin: "t") }
        XCTAssertEqual(b.rgb, [9, 8, 7, 6, 5, 4])
        XCTAssertThrowsError(try padded.withUnsafeBytes { try ColorImage(rgb: $0, width: 2, height: 2, origin: "img.raw") }) {
            XCTAssertTrue("\($0)".hasPrefix("img.raw: "), "\($0)")
        }
    }
}

final class ColorSamplingTests: XCTestCase {
    /// Sampling straight from the raw planes must give exactly what back-projection samples from
    /// the fully converted image, for every layout.
    func testSampledColorEqualsSamplingTheFullConversion() throws {
        let (w, h) = (61, 47)  // odd sizes: the chroma plane rounds up
        let rgb = (0..<(w * h * 3)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
        var bgra: [UInt8] = []
        for i in 0..<(w * h) { bgra += [rgb[3 * i + 2], rgb[3 * i + 1], rgb[3 * i], 255] }
        let y = (0..<(w * h)).map { UInt8(truncatingIfNeeded: $0 &* 40_503 >> 3) }
        let cbcr = (0..<(((w + 1) / 2) * ((h + 1) / 2) * 2)).map { UInt8(truncatingIfNeeded: $0 &* 97 + 11) }
        let layouts: [CapturedFrame.Color] = [
            .init(width: w, height: h, layout: .rgb8, planes: [rgb]),
            .init(width: w, height: h, layout: .bgra8, planes: [bgra]),
            .init(width: w, height: h, layout: .yuv420BiPlanar(YUVFormat(range: .video, matrix: .bt709)), planes: [y, cbcr])
        ]
        for color in layouts {
            let full = try ColorImage(decoding: color, origin: "t")
            for (dw, dh) in [(16, 12), (61, 47), (7, 5)] {
                let sampled = try ColorImage(decoding: color, sampledAt: dw, height: dh, origin: "t")
                XCTAssertEqual(sampled.width, dw)
                let k = CameraIntrinsics(fx: 10, fy: 10, cx: 3, cy: 2, referenceWidth: dw, referenceHeight: dh)
                let depth = DepthMap(width: dw, height: dh, metres: [Float](repeating: 1, count: dw * dh))
                let a = try BackProjection().run(RGBDFrame(depth: depth, color: full, intrinsics: k, pose: nil)).cloud
                let b = try BackProjection().run(RGBDFrame(depth: depth, color: sampled, intrinsics: k, pose: nil)).cloud
                XCTAssertEqual(a.colors, b.colors, "\(color.layout) at \(dw)x\(dh)")
                XCTAssertEqual(a.positions, b.positions)
            }
        }
    }

    func testShortPlanesAreRefused() {
        let c = CapturedFrame.Color(
            width: 64, height: 48, layout: .yuv420BiPlanar(YUVFormat(range: .full, matrix: .bt601)),
            planes: [[UInt8](repeating: 0, count: 64 * 48), [UInt8](repeating: 0, count: 10)])
        XCTAssertThrowsError(try ColorImage(decoding: c, sampledAt: 16, height: 12, origin: "cam")) {
            XCTAssertTrue("\($0)".hasPrefix("cam: CbCr plane"), "\($0)")
        }
    }
}
