import CloudCore
import CloudImages
import SharedTestData
import XCTest

/// TIFF layouts the grabber files (interleaved PackBits strips, little-endian) do not cover:
/// tiles with partial edge tiles, separate planes in strips and tiles, big-endian files. Each is
/// written here, uncompressed, from a grabber frame and must decode to the same samples.
final class TIFFImageTests: XCTestCase {
    func testLayoutsDecodeAlike() throws {
        for kind in ["depth", "rgb"] {
            let expected = try ImageFile.read(try ImageFixtures.path("pcl-grabber/frame_20121214T142255.814212_\(kind).tiff"))
            let layouts: [(String, TIFFFixture.Layout)] = [
                ("strips of 7 rows, big-endian", TIFFFixture.Layout(bigEndian: true, rowsPerStrip: 7)),
                ("one strip", TIFFFixture.Layout(rowsPerStrip: 480)),
                ("tiles 64x48 (partial edge tiles)", TIFFFixture.Layout(tile: (64, 48))),
                ("separate planes in strips", TIFFFixture.Layout(planar: true, rowsPerStrip: 5)),
                ("separate planes in tiles, big-endian", TIFFFixture.Layout(bigEndian: true, planar: true, tile: (32, 32)))
            ]
            for (name, layout) in layouts {
                let file = TIFFFixture.make(expected, layout)
                XCTAssertTrue(try ImageFile.decode(file, origin: "\(kind).tiff") == expected, "\(kind), \(name): decodes differently")
            }
        }
    }

    func testRefusesUnsupportedSamples() {
        let image = DecodedImage(width: 2, height: 2, channels: 1, samples: .uint16([1, 2, 3, 4]))
        var file = TIFFFixture.make(image, TIFFFixture.Layout(rowsPerStrip: 2))
        TIFFFixture.patch(&file, tag: 258, value: 32, bytes: 2)
        assertBadInput(naming: "wide.tiff", containing: "32-bit") {
            try ImageFile.decode(file, origin: "wide.tiff")
        }
    }

    /// Tile dimensions size a scratch buffer, so a header with giant tiles over a tiny image is refused.
    func testGiantTilesAreRefused() {
        let image = DecodedImage(width: 16, height: 16, channels: 1, samples: .uint16(Array(0..<256)))
        var file = TIFFFixture.make(image, TIFFFixture.Layout(tile: (16, 16)))
        TIFFFixture.patch(&file, tag: 322, value: 1 << 20, bytes: 4)
        assertBadInput(naming: "tiles.tiff", containing: "larger than") {
            try ImageFile.decode(file, origin: "tiles.tiff")
        }
    }

    func testAbsurdSizeIsRefusedBeforeDecoding() {
        let tiny = DecodedImage(width: 1, height: 1, channels: 1, samples: .uint16([7]))
        var file = TIFFFixture.make(tiny, TIFFFixture.Layout(rowsPerStrip: 1))
        TIFFFixture.patch(&file, tag: 256, value: 100_000, bytes: 4)
        TIFFFixture.patch(&file, tag: 257, value: 100_000, bytes: 4)
        assertBadInput(naming: "huge.tiff", containing: "100000x100000") {
            try ImageFile.decode(file, origin: "huge.tiff")
        }
    }
}

/// Uncompressed baseline TIFFs written byte by byte, for layouts and headers no fixture has.
enum TIFFFixture {
    struct Layout {
        var bigEndian = false
        var planar = false
        var rowsPerStrip = 0
        var tile: (width: Int, height: Int)?
    }

    struct Bytes {
        var bigEndian: Bool
        var data: [UInt8] = []

        mutating func u16(_ v: Int) {
            data += bigEndian ? [UInt8(v >> 8 & 255), UInt8(v & 255)] : [UInt8(v & 255), UInt8(v >> 8 & 255)]
        }

        mutating func u32(_ v: Int) {
            if bigEndian {
                u16(v >> 16)
                u16(v & 0xFFFF)
            } else {
                u16(v & 0xFFFF)
                u16(v >> 16)
            }
        }
    }

    /// `image` in `layout`: header, pixel chunks, then the IFD and its arrays.
    static func make(_ image: DecodedImage, _ layout: Layout) -> [UInt8] {
        var out = Bytes(bigEndian: layout.bigEndian)
        out.data += Array((layout.bigEndian ? "MM" : "II").utf8)
        out.u16(42)
        out.u32(0)  // the IFD's offset, set at the end
        let (w, h, c) = (image.width, image.height, image.channels)
        let planes = layout.planar ? c : 1
        let chunkSamples = layout.planar ? 1 : c
        let (cw, ch) = layout.tile ?? (w, layout.rowsPerStrip)
        func sample(_ index: Int?) {
            switch image.samples {
            case .uint8(let s): out.data.append(index.map { s[$0] } ?? 0)
            case .uint16(let s): out.u16(index.map { Int(s[$0]) } ?? 0)
            }
        }
        var offsets: [Int] = []
        var counts: [Int] = []
        for plane in 0..<planes {
            for y0 in stride(from: 0, to: h, by: ch) {
                for x0 in stride(from: 0, to: w, by: cw) {
                    let start = out.data.count
                    // Tiles are whole even at the edges (padded with zeros); the last strip is short.
                    let rows = layout.tile == nil ? min(ch, h - y0) : ch
                    for y in y0..<(y0 + rows) {
                        for x in x0..<(x0 + cw) {
                            for s in 0..<chunkSamples {
                                sample(y < h && x < w ? (y * w + x) * c + (layout.planar ? plane : s) : nil)
                            }
                        }
                    }
                    offsets.append(start)
                    counts.append(out.data.count - start)
                }
            }
        }
        if out.data.count % 2 == 1 { out.data.append(0) }
        var entries: [(tag: Int, type: Int, values: [Int])] = [
            (256, 4, [w]), (257, 4, [h]), (258, 3, Array(repeating: image.bitDepth, count: c)), (259, 3, [1]),
            (262, 3, [c >= 3 ? 2 : 1]), (277, 3, [c]), (284, 3, [layout.planar ? 2 : 1])
        ]
        if let tile = layout.tile {
            entries += [(322, 4, [tile.width]), (323, 4, [tile.height]), (324, 4, offsets), (325, 4, counts)]
        } else {
            entries += [(273, 4, offsets), (278, 4, [layout.rowsPerStrip]), (279, 4, counts)]
        }
        entries.sort { $0.tag < $1.tag }
        let ifd = out.data.count
        var arrays = Bytes(bigEndian: layout.bigEndian)
        let arraysStart = ifd + 2 + entries.count * 12 + 4
        out.u16(entries.count)
        for entry in entries {
            out.u16(entry.tag)
            out.u16(entry.type)
            out.u32(entry.values.count)
            var values = Bytes(bigEndian: layout.bigEndian)
            for v in entry.values { entry.type == 3 ? values.u16(v) : values.u32(v) }
            if values.data.count <= 4 {
                out.data += values.data + Array(repeating: 0, count: 4 - values.data.count)
            } else {
                out.u32(arraysStart + arrays.data.count)
                arrays.data += values.data
            }
        }
        out.u32(0)
        out.data += arrays.data
        var offset = Bytes(bigEndian: layout.bigEndian)
        offset.u32(ifd)
        out.data.replaceSubrange(4..<8, with: offset.data)
        return out.data
    }

    /// Overwrites the value of a one-value tag in a little-endian file from `make`.
    static func patch(_ file: inout [UInt8], tag: Int, value: Int, bytes: Int) {
        let ifd = Int(file[4]) | Int(file[5]) << 8 | Int(file[6]) << 16 | Int(file[7]) << 24
        let count = Int(file[ifd]) | Int(file[ifd + 1]) << 8
        for i in 0..<count {
            let entry = ifd + 2 + 12 * i
            if Int(file[entry]) | Int(file[entry + 1]) << 8 == tag {
                file.replaceSubrange((entry + 8)..<(entry + 8 + bytes), with: (0..<bytes).map { UInt8(value >> (8 * $0) & 255) })
            }
        }
    }
}
