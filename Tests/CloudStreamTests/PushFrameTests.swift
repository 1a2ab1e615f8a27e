import CloudCapture
import CloudCore
import CloudImages
import CloudStream
import Foundation
import SharedTestData
import XCTest

/// Real frames through the push socket's coding and back: the depth exact in its source's units,
/// the color within JPEG's error, the pose exact; and every lie a client can tell refused by the
/// server's side in one line that names the frame and fits a close frame.
final class PushFrameTests: XCTestCase {
    /// The five Redwood frames (with poses) and the TUM frame (5000 units a metre), as opened by
    /// the real sources.
    func frames() throws -> [(name: String, frame: CapturedFrame)] {
        let data = try sharedDataDirectory().appendingPathComponent("open3d-rgbd").path
        let redwood = try SourceSpec(parsing: "redwood:\(data)").open()
        var frames: [(String, CapturedFrame)] = []
        while let frame = try redwood.nextFrame() { frames.append(("redwood \(frames.count)", frame)) }
        XCTAssertEqual(frames.count, 5)
        let tum = try SourceSpec(parsing: "rgbd:\(data)/other_formats/TUM_color.png,\(data)/other_formats/TUM_depth.png")
            .open(options: SourceOptions(intrinsicsPath: "\(data)/camera_primesense.json", depthUnitsPerMetre: 5000))
        frames.append(("tum", try XCTUnwrap(try tum.nextFrame())))
        return frames
    }

    func testRealFramesComeBackWithTheirDepthExactColorCloseAndPoseExact() throws {
        for (name, frame) in try frames() {
            let scale = PushFrame.depthScale(of: frame)
            XCTAssertEqual(scale, name == "tum" ? 5000 : 1000, name)
            let original = try RGBDFrame(decoding: frame, origin: name)
            for codec in DepthFrameCodec.allCases {
                let message = try PushFrame.encode(
                    frame, index: 12, captured: 1_700_000_000_123_456_789, depthScale: scale, codec: codec, origin: name)
                let (back, header, jpeg) = try PushFrame.decode(
                    message.encoded, intrinsics: { _, _ in frame.intrinsics }, depthUnitsPerMetre: scale, origin: "stream 1")
                XCTAssertEqual(jpeg, message.payloads.last)
                XCTAssertEqual(header.frame, 12)
                XCTAssertEqual(header.depth.encoding, codec.rawValue)
                XCTAssertEqual(back.depth.data, frame.depth.data, "\(name) \(codec): depth")
                XCTAssertEqual(back.depth.encoding, frame.depth.encoding)
                XCTAssertEqual(back.intrinsics, frame.intrinsics)
                XCTAssertEqual(back.pose, frame.pose, "\(name): pose")
                XCTAssertEqual(back.timestamp, 1_700_000_000.123_456_789, accuracy: 1e-6)
                let color = try XCTUnwrap(try RGBDFrame(decoding: back, origin: name).color)
                let expected = try XCTUnwrap(original.color)
                XCTAssertEqual(color.width, expected.width)
                XCTAssertEqual(color.height, expected.height)
                // JPEG at quality 90: a few levels on average, more only at sharp edges.
                let differences = zip(color.rgb, expected.rgb).map { abs(Int($0) - Int($1)) }
                let mean = Double(differences.reduce(0, +)) / Double(differences.count)
                XCTAssertLessThan(mean, 3, "\(name) \(codec): mean color error")
                XCTAssertLessThan(differences.max() ?? 0, 96, "\(name) \(codec): largest color error")
            }
            XCTAssertTrue(name == "tum" || frame.pose != nil, "\(name) has a pose to carry")
        }
    }

    /// Phones deliver float metres: they travel as millimetres, within half a millimetre.
    func testFloatDepthTravelsAsMillimetres() throws {
        let metres: [Float] = [0, 0.5, 1.2344, 3, -1, .nan, 70, 2.0005]
        let frame = CapturedFrame(
            depth: CapturedFrame.Depth(
                width: 4, height: 2, encoding: .depthFloat32, data: metres.withUnsafeBytes { [UInt8]($0) }),
            color: CapturedFrame.Color(width: 2, height: 2, layout: .bgra8, planes: [[UInt8](repeating: 200, count: 16)]),
            intrinsics: CameraIntrinsics(fx: 4, fy: 4, cx: 2, cy: 1, referenceWidth: 4, referenceHeight: 2), pose: nil, timestamp: 0)
        XCTAssertEqual(PushFrame.depthScale(of: frame), 1000)
        let message = try PushFrame.encode(frame, index: 0, captured: 0, depthScale: 1000, codec: .zstd, origin: "phone")
        let (back, _, _) = try PushFrame.decode(
            message.encoded, intrinsics: { _, _ in frame.intrinsics }, depthUnitsPerMetre: 1000, origin: "phone")
        let millimetres = back.depth.data.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
        // Beyond 65.535 m, and no depth in any form, is 0.
        XCTAssertEqual(millimetres, [0, 500, 1234, 3000, 0, 0, 0, 2001])
        XCTAssertEqual(back.color?.width, 2)
    }

    // MARK: Bad input, as a client could send it

    var intrinsics: CameraIntrinsics { CameraIntrinsics(fx: 525, fy: 525, cx: 319.5, cy: 239.5, referenceWidth: 640, referenceHeight: 480) }

    func goodMessage(pose: [Double]? = nil) throws -> StreamMessage {
        let depth = try DepthFrameCodec.zstd.encode([UInt16](repeating: 1000, count: 16), width: 4, height: 4, origin: "test")
        let jpeg = try JPEGWriter.encode([UInt8](repeating: 90, count: 4 * 4 * 3), width: 4, height: 4, channels: 3, origin: "test")
        return try message(
            PushHeader(
                frame: 12, captured: 5, depth: .init(encoding: "zstd", width: 4, height: 4, bytes: depth.count),
                color: .init(encoding: "jpeg", bytes: jpeg.count), pose: pose),
            [Data(depth), Data(jpeg)])
    }

    func message(_ header: PushHeader, _ payloads: [Data]) throws -> StreamMessage {
        try StreamMessage(header: header, payloads: payloads)
    }

    func decode(_ data: Data) throws {
        _ = try PushFrame.decode(data, intrinsics: { _, _ in self.intrinsics }, depthUnitsPerMetre: 1000, origin: "push message 3")
    }

    /// The refusal's message names `name`, says `detail`, and fits a close frame's reason.
    func assertRefused(_ data: Data, naming name: String, _ detail: String, line: UInt = #line) {
        assertCloudError(.badInput, naming: name, containing: detail, line: line) { try decode(data) }
        do {
            try decode(data)
        } catch {
            let reason = PushFrame.closeReason(for: error)
            XCTAssertLessThanOrEqual(reason.utf8.count, PushFrame.maxCloseReasonBytes, line: line)
            XCTAssertTrue(reason.hasPrefix(name), reason, line: line)
        }
    }

    func testTheGoodMessageDecodes() throws {
        XCTAssertNoThrow(try decode(try goodMessage(pose: PushFrame.rowMajorIdentity).encoded))
    }

    func testBrokenFramingIsRefused() throws {
        let good = try goodMessage().encoded
        assertRefused(good.prefix(2), naming: "push message 3", "shorter than its 4-byte header length")
        assertRefused(good.dropLast(5), naming: "push message 3", "but \(good.count - 5 - 4 - headerLength(good)) follow")
        assertRefused(good + Data([1]), naming: "push message 3", "bytes of payload, but")
        var notJSON = good
        notJSON[4] = UInt8(ascii: "x")
        assertRefused(notJSON, naming: "push message 3", "not the JSON")
        assertRefused(StreamMessage(header: Data(#"{"frame":1}"#.utf8), payloads: []).encoded, naming: "push message 3", "no captured")
    }

    func headerLength(_ data: Data) -> Int { Int(data[0]) | Int(data[1]) << 8 }

    func testLyingLengthsAreRefused() throws {
        let good = try goodMessage()
        var header = try JSONDecoder.snakeCase.decode(PushHeader.self, from: good.header)
        // The same payloads, announced one byte longer for depth and one shorter for color.
        header.depth.bytes += 1
        header.color!.bytes -= 1
        assertRefused(try message(header, good.payloads).encoded, naming: "frame 12", "zstd")
        header.depth.bytes = -1
        assertRefused(try message(header, good.payloads).encoded, naming: "push message 3", "negative payload size")
    }

    func testImagesTooLargeAreRefusedFromTheHeaderAlone() throws {
        // Nothing follows the header: a decoder that allocated before judging the size would still fail, later and bigger.
        for (width, height) in [(16384, 16384), (8193, 10), (8192, 8192), (0, 480), (640, -1)] {
            let header = PushHeader(
                frame: 12, captured: 0, depth: .init(encoding: "rvl", width: width, height: height, bytes: 0), color: nil, pose: nil)
            assertRefused(
                try message(header, []).encoded, naming: "frame 12", "\(width)x\(height) depth image is outside what a stream frame carries"
            )
        }
        // A PNG whose own header is larger than the frame's is refused before its pixels are read.
        let big = try PNGWriter.encode(gray16: [UInt16](repeating: 0, count: 64 * 64), width: 64, height: 64, origin: "test")
        let header = PushHeader(
            frame: 12, captured: 0, depth: .init(encoding: "png", width: 4, height: 4, bytes: big.count), color: nil, pose: nil)
        assertRefused(try message(header, [Data(big)]).encoded, naming: "frame 12", "the PNG is 64x64, where the frame says 4x4")
    }

    func testDepthOfAnotherSizeThanTheHeaderSaysIsRefused() throws {
        for codec in DepthFrameCodec.allCases {
            let depth = try codec.encode([UInt16](repeating: 700, count: 20), width: 5, height: 4, origin: "test")
            let header = PushHeader(
                frame: 12, captured: 0, depth: .init(encoding: codec.rawValue, width: 4, height: 4, bytes: depth.count), color: nil,
                pose: nil)
            assertRefused(try message(header, [Data(depth)]).encoded, naming: "frame 12", codec.rawValue)
        }
    }

    func testUnknownEncodingsAreRefused() throws {
        let good = try goodMessage()
        var header = try JSONDecoder.snakeCase.decode(PushHeader.self, from: good.header)
        header.depth.encoding = "lzf"
        assertRefused(try message(header, good.payloads).encoded, naming: "frame 12", "unknown depth encoding 'lzf' (png, rvl, zstd)")
        header.depth.encoding = "zstd"
        header.color!.encoding = "webp"
        assertRefused(try message(header, good.payloads).encoded, naming: "frame 12", "unknown color encoding 'webp' (jpeg)")
    }

    func testAJPEGThatIsNotOneIsRefused() throws {
        let good = try goodMessage()
        var header = try JSONDecoder.snakeCase.decode(PushHeader.self, from: good.header)
        let png = try PNGWriter.encode(rgb: ColorImage(width: 4, height: 4, rgb: [UInt8](repeating: 9, count: 48)), origin: "test")
        header.color!.bytes = png.count
        assertRefused(try message(header, [good.payloads[0], Data(png)]).encoded, naming: "frame 12", "color: not a JPEG")
        var jpeg = [UInt8](good.payloads[1])
        jpeg.removeLast(jpeg.count / 2)
        header.color!.bytes = jpeg.count
        assertRefused(try message(header, [good.payloads[0], Data(jpeg)]).encoded, naming: "frame 12: color", "truncated")
    }

    func testBadPosesAreRefused() throws {
        var translated = PushFrame.rowMajorIdentity
        translated[3] = 1e9
        var scaled = PushFrame.rowMajorIdentity
        scaled[0] = 2
        var lastRow = PushFrame.rowMajorIdentity
        lastRow[14] = 1
        for (pose, detail) in [
            (Array(PushFrame.rowMajorIdentity.prefix(12)), "a pose is 16 numbers, not 12"), (translated, "the translation"),
            (scaled, "the rotation is not a rotation"), (lastRow, "last row is not 0 0 0 1")
        ] {
            assertRefused(try goodMessage(pose: pose).encoded, naming: "frame 12", detail)
        }
        // JSON has no infinity: a number too large for a Double makes the header not JSON.
        let good = try goodMessage(pose: PushFrame.rowMajorIdentity)
        let text = String(decoding: good.header, as: UTF8.self).replacingOccurrences(of: "[1,0,0,0", with: "[1e999,0,0,0")
        assertRefused(StreamMessage(header: Data(text.utf8), payloads: good.payloads).encoded, naming: "push message 3", "not the JSON")
    }

    func testCloseReasonsFitInACloseFrame() {
        let long = CloudError.badInput("frame 7: " + String(repeating: "ünïcödé ", count: 40))
        let reason = PushFrame.closeReason(for: long)
        XCTAssertLessThanOrEqual(reason.utf8.count, 123)
        XCTAssertTrue(reason.hasPrefix("frame 7: "), reason)
    }
}

extension PushFrame {
    static var rowMajorIdentity: [Double] { rowMajor(.identity) }
}

extension JSONDecoder {
    static var snakeCase: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}
