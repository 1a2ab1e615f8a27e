import CloudCore
import CloudImages
import XCTest

/// The APNG assembler: chunk order, sequence numbers and CRCs as the APNG specification sets them,
/// and every frame's data decoding (through libpng, as a standalone PNG) to the pixels it came from.
final class AnimatedPNGTests: XCTestCase {
    private func frame(_ seed: Int) -> ColorImage {
        let (w, h) = (23, 11)
        return ColorImage(width: w, height: h, rgb: (0..<(w * h * 3)).map { UInt8(($0 * 7 + seed * 31) % 251) })
    }

    func testFramesSurviveTheRewrap() throws {
        let images = (0..<4).map(frame)
        // However many IDAT chunks the encoder splits a frame into, all of them are carried over.
        let encoded = try images.map { try PNGWriter.encode(rgb: $0, origin: "test") }
        let apng = try AnimatedPNG.assemble(frames: encoded, delayMilliseconds: 250, origin: "test.png")
        let chunks = try AnimatedPNG.chunks(of: apng, origin: "test.png")  // checks every CRC
        XCTAssertEqual(chunks.first?.type, "IHDR")
        XCTAssertEqual(chunks[1].type, "acTL", "acTL must come before the image data")
        XCTAssertEqual(AnimatedPNG.readBE32(chunks[1].data, 0), 4, "frame count")
        XCTAssertEqual(AnimatedPNG.readBE32(chunks[1].data, 4), 0, "loops forever")
        XCTAssertEqual(chunks.last?.type, "IEND")

        // Sequence numbers run 0, 1, 2 ... over fcTL and fdAT together.
        let sequenced = chunks.filter { $0.type == "fcTL" || $0.type == "fdAT" }
        XCTAssertEqual(sequenced.map { AnimatedPNG.readBE32($0.data, 0) }, (0..<UInt32(sequenced.count)).map { $0 })
        let controls = chunks.filter { $0.type == "fcTL" }
        XCTAssertEqual(controls.count, 4)
        for c in controls {
            XCTAssertEqual(c.data.count, 26)
            XCTAssertEqual(AnimatedPNG.readBE32(c.data, 4), 23)
            XCTAssertEqual(AnimatedPNG.readBE32(c.data, 8), 11)
            XCTAssertEqual(Array(c.data[20..<24]), [0, 250, 0x03, 0xE8], "250/1000 s")
        }

        // Split back into frames: the IDATs after the first fcTL, then each fcTL's fdATs.
        var frames: [[[UInt8]]] = []
        for chunk in chunks {
            switch chunk.type {
            case "fcTL": frames.append([])
            case "IDAT": frames[frames.count - 1].append(chunk.data)
            case "fdAT": frames[frames.count - 1].append(Array(chunk.data.dropFirst(4)))
            default: break
            }
        }
        XCTAssertEqual(frames.count, 4)
        let header = chunks[0].data
        for (i, data) in frames.enumerated() {
            let standalone = rebuild(header: header, data: data)
            let decoded = try ImageFile.decode(standalone, origin: "frame \(i)").colorImage(origin: "frame \(i)")
            XCTAssertEqual(decoded, images[i], "frame \(i)")
        }
        // Without APNG support a reader shows frame 0: the file is also a plain PNG of it.
        XCTAssertEqual(try ImageFile.decode(apng, origin: "apng").colorImage(origin: "apng"), images[0])
    }

    func testRefusesMismatchedFramesAndBadCRC() throws {
        let a = try PNGWriter.encode(rgb: frame(0), origin: "a")
        let b = try PNGWriter.encode(rgb: ColorImage(width: 2, height: 2, rgb: [UInt8](repeating: 9, count: 12)), origin: "b")
        XCTAssertThrowsError(try AnimatedPNG.assemble(frames: [a, b], delayMilliseconds: 100, origin: "x.png"))
        var corrupt = a
        corrupt[40] ^= 0xFF
        XCTAssertThrowsError(try AnimatedPNG.chunks(of: corrupt, origin: "x.png")) { error in
            XCTAssertTrue((error as? CloudError)?.message.contains("CRC") ?? false, "\(error)")
        }
    }

    private func rebuild(header: [UInt8], data: [[UInt8]]) -> [UInt8] {
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            let n = UInt32(body.count)
            let crc = crc32(typed)
            return [UInt8(n >> 24), UInt8(n >> 16 & 255), UInt8(n >> 8 & 255), UInt8(n & 255)] + typed
                + [UInt8(crc >> 24), UInt8(crc >> 16 & 255), UInt8(crc >> 8 & 255), UInt8(crc & 255)]
        }
        return AnimatedPNG.signature + chunk("IHDR", header) + data.flatMap { chunk("IDAT", $0) } + chunk("IEND", [])
    }

    /// The textbook bitwise CRC-32 (polynomial 0xEDB88320), independent of zlib.
    private func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
