/// Decompression of LZF (Marc Lehmann's liblzf format, used by PCL's PCLZF images and PCD
/// `binary_compressed`). The stream is a sequence of items, each starting with a control byte:
///
///     000LLLLL                      literal run: the next L + 1 bytes are copied
///     LLLooooo oooooooo             back reference of L + 2 bytes (L = 1...6)
///     111ooooo LLLLLLLL oooooooo    back reference of L + 9 bytes
///
/// A back reference copies from `distance = o + 1` bytes behind the output position (13-bit o,
/// so up to 8192 back). When the distance is shorter than the length, the copy overlaps the bytes
/// it is producing, which is how runs are encoded (distance 2 repeats a 16-bit value).
public enum LZF {
    /// The most output one byte of LZF input can stand for: a back reference of 3 bytes copies at
    /// most 7 + 255 + 2 = 264 bytes (88 per byte), a 2-byte one at most 8 (4 per byte), and a
    /// literal run of L bytes costs L + 1 bytes of input.
    public static let maxExpansion = 88

    /// Whether `compressed` bytes of LZF data can decompress to `uncompressed` bytes at all: a
    /// header claiming more is refused before a buffer of that size is reserved.
    public static func canExpand(_ compressed: Int, to uncompressed: Int) -> Bool {
        let (most, overflow) = compressed.multipliedReportingOverflow(by: maxExpansion)
        return compressed >= 0 && uncompressed >= 0 && (overflow || uncompressed <= most)
    }

    /// Decompresses `input` so that it fills `output` exactly. Every item is checked against both
    /// buffers before it is copied: corrupt or truncated data throws, never reads or writes outside.
    public static func decompress(
        _ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
        origin: String
    ) throws {
        guard let source = input.baseAddress?.assumingMemoryBound(to: UInt8.self),
            let target = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        else {
            if input.count == output.count { return }
            throw CloudError.badInput(.file(origin), "LZF data of \(input.count) bytes cannot make \(output.count)")
        }
        let inputCount = input.count
        let outputCount = output.count
        var i = 0
        var o = 0
        // A plain function of its arguments: a closure over `i` would box it, and every access
        // of the loop's counters would go through the heap.
        func corrupt(_ what: String, _ i: Int) -> CloudError {
            .badInput(.file(origin), "corrupt LZF data at byte \(i) of \(input.count): \(what)")
        }
        while i < inputCount {
            let control = Int(source[i])
            i += 1
            if control < 32 {
                let length = control + 1
                guard length <= inputCount - i else {
                    throw corrupt("a literal run of \(length) bytes passes the end of the data (truncated)", i)
                }
                guard length <= outputCount - o else { throw corrupt("the data decompresses to more than \(outputCount) bytes", i) }
                if inputCount - i >= 32 && outputCount - o >= 32 {
                    // Two 16-byte moves instead of a call per run; the bytes past the run are
                    // overwritten by what follows (the buffer's end is never passed).
                    let raw = UnsafeRawPointer(source + i)
                    let out = UnsafeMutableRawPointer(target + o)
                    out.storeBytes(of: raw.loadUnaligned(as: SIMD16<UInt8>.self), as: SIMD16<UInt8>.self)
                    (out + 16).storeBytes(of: raw.loadUnaligned(fromByteOffset: 16, as: SIMD16<UInt8>.self), as: SIMD16<UInt8>.self)
                } else {
                    (target + o).update(from: source + i, count: length)
                }
                i += length
                o += length
                continue
            }
            var length = control >> 5
            if length == 7 {
                guard i < inputCount else { throw corrupt("a back reference is cut off (truncated)", i) }
                length += Int(source[i])
                i += 1
            }
            length += 2
            guard i < inputCount else { throw corrupt("a back reference is cut off (truncated)", i) }
            let distance = ((control & 0x1F) << 8 | Int(source[i])) + 1
            i += 1
            guard distance <= o else { throw corrupt("a back reference points \(distance) bytes back from output byte \(o)", i) }
            guard length <= outputCount - o else { throw corrupt("the data decompresses to more than \(outputCount) bytes", i) }
            if distance >= 8 && outputCount - o >= length + 8 {
                // 8 bytes at a time: each word read lies at least 8 bytes behind the one written,
                // so it is already complete; the last word may run past the reference into room
                // that what follows overwrites.
                let out = UnsafeMutableRawPointer(target + o)
                let from = UnsafeRawPointer(target + (o - distance))
                var k = 0
                while k < length {
                    (out + k).storeBytes(of: from.loadUnaligned(fromByteOffset: k, as: UInt64.self), as: UInt64.self)
                    k += 8
                }
            } else {
                // Overlapping (a run repeating the last 1 to 7 bytes), or near the end: byte by byte.
                for k in 0..<length { target[o + k] = target[o - distance + k] }
            }
            o += length
        }
        guard o == outputCount else {
            throw CloudError.badInput(.file(origin), "LZF data decompresses to \(o) bytes, the header says \(outputCount) (truncated?)")
        }
    }
}
