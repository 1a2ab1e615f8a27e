import CloudCore
import SafeIO

/// Just enough of JPEG's marker structure (ITU-T T.81, annex B) to find the frame header: a
/// bundle's JPEG headers and size are checked when the bundle is opened, by reading a few bytes
/// per segment; the pixels are decoded once, when the frame is read.
enum JPEGHeader {
    /// The image size from the first start-of-frame segment; bad input naming `path` for data that
    /// is not a JPEG, ends before its frame header, or has no usable size.
    static func dimensions(of path: String) throws -> ImageSize {
        func bad(_ problem: String) -> CloudError { .badInput(.file(path), "corrupt JPEG: \(problem)") }
        let file = try InputFile(path, role: "a frame file named in manifest.json")
        // Read through a 64 KiB window: a walk over thousands of tiny segments or fill bytes (a
        // 256 MB file of 0xFF) costs a system call per window, not two per byte (minutes; found
        // while fuzzing, Tools/fuzz jpegheader).
        var window: [UInt8] = []
        var windowStart: UInt64 = 0
        func read(_ count: Int, at offset: UInt64) throws -> [UInt8] {
            if offset < windowStart || offset + UInt64(count) > windowStart + UInt64(window.count) {
                window = offset < UInt64(file.size) ? try file.read(at: Int(offset), count: max(count, 1 << 16)) : []
                windowStart = offset
            }
            let start = Int(offset - windowStart)
            guard start + count <= window.count else { throw bad("the file ends inside its headers") }
            return Array(window[start..<(start + count)])
        }
        /// The offset of the first byte at or after `offset` that is not 0xFF.
        func skipFill(from offset: UInt64) throws -> UInt64 {
            var offset = offset
            while true {
                _ = try read(1, at: offset)
                if let i = window[Int(offset - windowStart)...].firstIndex(where: { $0 != 0xFF }) {
                    return windowStart + UInt64(i)
                }
                offset = windowStart + UInt64(window.count)
            }
        }
        guard try read(2, at: 0) == [0xFF, 0xD8] else { throw bad("it does not start with a JPEG start-of-image marker") }
        var offset: UInt64 = 2
        while true {
            var marker = try read(2, at: offset)
            guard marker[0] == 0xFF else { throw bad("no segment marker at byte \(offset)") }
            // A marker may be preceded by any number of 0xFF fill bytes.
            if marker[1] == 0xFF {
                offset = try skipFill(from: offset + 1) - 1
                marker = try read(2, at: offset)
            }
            let code = marker[1]
            offset += 2
            // Markers without a length field: TEM and RST0...RST7. SOI again or EOI this early is corrupt.
            if code == 0x01 || (0xD0...0xD7).contains(code) { continue }
            guard code != 0xD8, code != 0xD9 else { throw bad("the image ends before its frame header") }
            guard code != 0xDA else { throw bad("scan data starts before any frame header") }
            let lengthBytes = try read(2, at: offset)
            let length = Int(lengthBytes[0]) << 8 | Int(lengthBytes[1])
            guard length >= 2 else { throw bad("segment 0xFF\(String(code, radix: 16, uppercase: true)) has length \(length)") }
            // SOF0...SOF15 except DHT (C4), JPG (C8) and DAC (CC), which share the range.
            if (0xC0...0xCF).contains(code) && code != 0xC4 && code != 0xC8 && code != 0xCC {
                guard length >= 8 else { throw bad("frame header of \(length) bytes is too short") }
                let sof = try read(5, at: offset + 2)
                let height = Int(sof[1]) << 8 | Int(sof[2])
                let width = Int(sof[3]) << 8 | Int(sof[4])
                guard width > 0, height > 0 else {
                    throw bad("frame header gives size \(width)x\(height) (a height defined later by a DNL segment is not supported)")
                }
                return ImageSize(width: width, height: height)
            }
            offset += UInt64(length)
        }
    }
}
