import CloudCore
import CloudImages
import Foundation
import SafeIO
import SharedTestData
import TestEncoders
import XCTest

/// EXR depth maps through OpenEXR's core library: what is written is read back sample for sample,
/// float exactly (NaN, infinities, zero and negatives as stored: `DepthMap` decides what is depth),
/// half as Float16 rounds it, over several of the library's 16-line chunks and a short last one.
final class EXRDepthFileTests: XCTestCase {
    private let (width, height) = (37, 53)

    private func samples() -> [Float] {
        var values = (0..<(width * height)).map { Float($0) * 0.0013 + 0.25 }
        values[0...4] = [.nan, .infinity, -.infinity, 0, -1.5]
        values[values.count - 1] = 65_000.5
        return values
    }

    private func roundTrip(half: Bool) throws -> (EXRDepthFile.Header, [Float]) {
        let path = try makeScratchFolder().appendingPathComponent("depth.exr").path
        try EXRDepthFile.write(samples(), width: width, height: height, channel: "R", half: half, to: path)
        let bytes = try InputFile.readAll(path, limit: 1 << 20)
        let header = try EXRDepthFile.header(bytes, channel: "R", origin: path)
        let decoded = try EXRDepthFile.decode(bytes, channel: "R", origin: path)
        XCTAssertEqual(decoded.header, header)
        return (header, decoded.samples)
    }

    func testFloatSamplesReadBackExactly() throws {
        let (header, read) = try roundTrip(half: false)
        XCTAssertEqual([header.width, header.height, header.storedBits], [width, height, 32])
        XCTAssertEqual(read.count, width * height)
        for (i, (a, b)) in zip(read, samples()).enumerated() where !sameFloat(a, b) {
            XCTFail("sample \(i): read \(a), wrote \(b)")
            break
        }
    }

    func testHalfSamplesReadBackAsHalfRoundsThem() throws {
        let (header, read) = try roundTrip(half: true)
        XCTAssertEqual(header.storedBits, 16)
        let expected = samples().map { Float(Float16($0)) }
        for (i, (a, b)) in zip(read, expected).enumerated() where !sameFloat(a, b) {
            XCTFail("sample \(i): read \(a), half of what was written is \(b)")
            break
        }
        XCTAssertNotEqual(read[100], samples()[100], "half has fewer bits than float")
    }
}
