import Foundation
import SharedTestData

/// Real files from ../shared/data, and byte surgery on them, for the image and calibration tables
/// of the bad-input corpus: every bad input is a real capture cut or patched, not a committed file.
enum Fixture {
    static func bytes(_ relative: String) -> [UInt8] {
        [UInt8](FileManager.default.contents(atPath: SharedData.path(relative)) ?? Data())
    }

    static let depthPNG = bytes("open3d-rgbd/depth/00000.png")
    static let colorJPEG = bytes("open3d-rgbd/color/00000.jpg")
    static let colorPNG = bytes("open3d-rgbd/other_formats/TUM_color.png")
    static let depthPGM = bytes("open3d-rgbd/other_formats/NYU_depth.pgm")
    static let colorPPM = bytes("open3d-rgbd/other_formats/NYU_color.ppm")
    static let grabberStem = "pcl-grabber/frame_20121214T142255.814212"
    static let depthTIFF = bytes(grabberStem + "_depth.tiff")
    static let depthPCLZF = bytes(grabberStem + "_depth.pclzf")
    static let colorPCLZF = bytes(grabberStem + "_rgb.pclzf")
    static let grabberXML = bytes(grabberStem + ".xml")
    static let intrinsicsJSON = bytes("open3d-rgbd/camera_primesense.json")
    static let trajectory = bytes("open3d-rgbd/trajectory.log")

    /// The first `fraction` of `bytes`.
    static func cut(_ bytes: [UInt8], _ fraction: Double) -> [UInt8] {
        Array(bytes.prefix(Int(Double(bytes.count) * fraction)))
    }

    /// `bytes` with `replacement` written at `offset`.
    static func patch(_ bytes: [UInt8], at offset: Int, _ replacement: [UInt8]) -> [UInt8] {
        var b = bytes
        b.replaceSubrange(offset..<(offset + replacement.count), with: replacement)
        return b
    }

    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(v >> (24 - 8 * $0) & 0xFF) } }
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xFF) } }

    static func text(_ s: String) -> [UInt8] { Array(s.utf8) }
}

/// PNG chunks, to rebuild a file with some chunk changed and every CRC right.
enum PNGChunks {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func split(_ png: [UInt8]) -> [(type: String, data: [UInt8])] {
        var chunks: [(String, [UInt8])] = []
        var i = 8
        while i + 12 <= png.count {
            let n = png[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) }
            chunks.append((String(decoding: png[(i + 4)..<(i + 8)], as: UTF8.self), Array(png[(i + 8)..<(i + 8 + n)])))
            i += 12 + n
        }
        return chunks
    }

    static func join(_ chunks: [(type: String, data: [UInt8])]) -> [UInt8] {
        var out = signature
        for (type, data) in chunks {
            let body = Array(type.utf8) + data
            out += Fixture.be32(data.count) + body + Fixture.be32(Int(crc32(body)))
        }
        return out
    }

    /// `png` with the IHDR field at `offset` (0 width, 4 height, 8 bit depth, 9 color type) replaced.
    static func ihdr(_ png: [UInt8], at offset: Int, _ value: [UInt8]) -> [UInt8] {
        join(split(png).map { $0.type == "IHDR" ? ($0.type, Fixture.patch($0.data, at: offset, value)) : $0 })
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// A genuine `width` x `height` 16-bit gray PNG of zeros (no depth), without holding its
    /// pixels: one fixed-Huffman deflate block of a zero literal then matches of 258 zeros at
    /// distance 1 (13 bits each), so 16384x16384 is a 3.4 MB file.
    static func zeroDepth(width: Int, height: Int) -> [UInt8] {
        let total = height * (1 + width * 2)  // each row: filter byte 0, then samples
        var bits = BitWriter()
        bits.write(0b011, count: 3, lsbFirst: true)  // BFINAL 1, BTYPE 01 (fixed)
        bits.writeCode(0b0011_0000, count: 8)  // literal 0
        var left = total - 1
        while left >= 258 {
            bits.writeCode(0b1100_0101, count: 8)  // length 258 (code 285)
            bits.writeCode(0, count: 5)  // distance 1 (code 0)
            left -= 258
        }
        for _ in 0..<left { bits.writeCode(0b0011_0000, count: 8) }
        bits.writeCode(0, count: 7)  // end of block (256)
        let adler = UInt32(total % 65521) << 16 | 1
        let idat = [0x78, 0x01] + bits.finished + Fixture.be32(Int(adler))
        let header = Fixture.be32(width) + Fixture.be32(height) + [16, 0, 0, 0, 0]
        return join([("IHDR", header), ("IDAT", idat), ("IEND", [])])
    }

    /// Deflate's bit order: values least significant bit first, Huffman codes most significant first.
    struct BitWriter {
        var bytes: [UInt8] = []
        var current: UInt32 = 0
        var used = 0

        mutating func write(_ value: UInt32, count: Int, lsbFirst: Bool) {
            for k in 0..<count {
                let bit = lsbFirst ? (value >> k) & 1 : (value >> (count - 1 - k)) & 1
                current |= bit << used
                used += 1
                if used == 8 {
                    bytes.append(UInt8(current))
                    current = 0
                    used = 0
                }
            }
        }

        mutating func writeCode(_ code: UInt32, count: Int) { write(code, count: count, lsbFirst: false) }

        /// The stream, its last partial byte included.
        var finished: [UInt8] { used > 0 ? bytes + [UInt8(current)] : bytes }
    }
}

/// PCLZF files: header fields and a genuine large frame.
enum PCLZF {
    /// `file` with header field `offset` (5 width, 9 height, 29 compressed size, 33 raw size) set.
    static func field(_ file: [UInt8], at offset: Int, _ value: Int) -> [UInt8] {
        Fixture.patch(file, at: offset, Fixture.le32(value))
    }

    /// A genuine `width` x `height` depth16 PCLZF of zeros: one literal zero, then back
    /// references of 264 bytes at distance 1 (3 bytes each); 16384x16384 is a 6 MB file.
    static func zeroDepth(width: Int, height: Int) -> [UInt8] {
        let raw = width * height * 2
        var data: [UInt8] = [0, 0]
        var left = raw - 1
        data.reserveCapacity(left / 264 * 3 + 8)
        while left >= 264 {
            data += [0xE0, 0xFF, 0x00]
            left -= 264
        }
        if left >= 9 {
            data += [0xE0, UInt8(left - 9), 0x00]
        } else if left >= 3 {
            data += [UInt8((left - 2) << 5), 0x00]
        } else if left > 0 {
            data += [UInt8(left - 1)] + [UInt8](repeating: 0, count: left)
        }
        let type = Array("depth16".utf8) + [UInt8](repeating: 0x20, count: 9)
        return Array("PCLZF".utf8) + Fixture.le32(width) + Fixture.le32(height) + type + Fixture.le32(data.count) + Fixture.le32(raw) + data
    }
}
