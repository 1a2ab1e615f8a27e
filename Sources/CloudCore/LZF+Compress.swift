/// Compression into the LZF format LZF.swift decodes (the items are described there). A hash of
/// the next four bytes finds the last place they occurred; a match of four bytes or more within
/// the 8 KiB a back reference reaches becomes a reference, anything else a literal. (LZF allows
/// three-byte references, but one saves at most a byte and splits a literal run: requiring four,
/// as LZ4 does, made a cloud's planes 1 % larger and their compression 40 % faster.) Where nothing matches for a
/// while (the low bytes of float coordinates are close to noise) the search steps over more bytes
/// at a time, as LZ4 does: a cloud's planes compress about as well, several times faster.
extension LZF {
    /// The most bytes compressing `count` bytes can take: literal runs of 32 bytes cost one control
    /// byte each.
    public static func compressedBound(_ count: Int) -> Int { count + count / 32 + 1 }

    /// Compresses `input` in independent pieces of `piece` bytes on every core and returns the
    /// compressed pieces, to be stored one after the other: together they are one valid LZF
    /// stream, as no back reference of a piece reaches into the piece before it and a decoder
    /// keeps no state but the output position.
    public static func compress(_ input: UnsafeRawBufferPointer, piece: Int = 1 << 20) -> [[UInt8]] {
        let pieces = max(1, (input.count + piece - 1) / piece)
        var outputs = [[UInt8]](repeating: [], count: pieces)
        outputs.withUnsafeMutableBufferPointer { results in
            let slots = results.baseAddress!
            Parallel.parts(pieces) { k in
                let part = UnsafeRawBufferPointer(rebasing: input[(k * piece)..<min(input.count, (k + 1) * piece)])
                slots[k] = [UInt8](unsafeUninitializedCapacity: compressedBound(part.count)) { out, count in
                    count = compress(part, into: UnsafeMutableRawBufferPointer(out))
                }
            }
        }
        return outputs
    }

    /// Compresses `input` into `output` (at least `compressedBound(input.count)` bytes); returns
    /// the bytes written.
    static func compress(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int {
        precondition(output.count >= compressedBound(input.count), "LZF output buffer too small")
        let n = input.count
        guard n > 0, let raw = input.baseAddress, let dst = output.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
        let src = raw.assumingMemoryBound(to: UInt8.self)
        let hashBits: UInt32 = 14
        // The last position at which each hash of four bytes was seen, as UInt32 (an untouched
        // entry, 0, is a match candidate at position 0, which the byte comparison then settles).
        return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 1 << Int(hashBits)) { table in
            table.initialize(repeating: 0)
            var op = 0
            var literalStart = 0
            var ip = 0
            // Positions tried since the last match: every 32 of them lengthen the step by one.
            var misses = 0
            // Word loads read 4 or 8 bytes at once: stop where they would pass the end, and leave
            // the last bytes to the literal flush.
            let wordEnd = n - 8
            while ip < wordEnd {
                let here = raw.loadUnaligned(fromByteOffset: ip, as: UInt32.self)
                let h = Int((here &* 2_654_435_761) >> (32 - hashBits))
                let candidate = Int(table[h])
                table[h] = UInt32(truncatingIfNeeded: ip)
                let distance = ip - candidate
                guard distance > 0, distance <= 8192,
                    raw.loadUnaligned(fromByteOffset: candidate, as: UInt32.self) == here
                else {
                    ip += 1 + min(misses >> 5, 15)
                    misses += 1
                    continue
                }
                misses = 0
                // Extend the match 8 bytes at a time: the first differing byte is the lowest set
                // bit of the XOR (little endian).
                let most = min(264, n - ip)
                var length = 4
                while length + 8 <= most {
                    let x =
                        raw.loadUnaligned(fromByteOffset: candidate + length, as: UInt64.self)
                        ^ raw.loadUnaligned(fromByteOffset: ip + length, as: UInt64.self)
                    if x != 0 {
                        length += x.trailingZeroBitCount >> 3
                        break
                    }
                    length += 8
                }
                if length + 8 > most {
                    while length < most, src[candidate + length] == src[ip + length] { length += 1 }
                }
                op = writeLiterals(src + literalStart, count: ip - literalStart, to: dst, at: op)
                let l = length - 2
                let offset = distance - 1
                if l < 7 {
                    dst[op] = UInt8(l << 5 | offset >> 8)
                    op += 1
                } else {
                    dst[op] = UInt8(7 << 5 | offset >> 8)
                    dst[op + 1] = UInt8(l - 7)
                    op += 2
                }
                dst[op] = UInt8(truncatingIfNeeded: offset)
                op += 1
                ip += length
                literalStart = ip
            }
            return writeLiterals(src + literalStart, count: n - literalStart, to: dst, at: op)
        }
    }

    /// Writes `count` bytes at `bytes` as literal runs of at most 32 at `dst + op`; returns the new end.
    @inline(__always)
    private static func writeLiterals(_ bytes: UnsafePointer<UInt8>, count: Int, to dst: UnsafeMutablePointer<UInt8>, at op: Int) -> Int {
        var op = op
        var start = 0
        while start < count {
            let run = min(32, count - start)
            dst[op] = UInt8(run - 1)
            (dst + op + 1).update(from: bytes + start, count: run)
            op += run + 1
            start += run
        }
        return op
    }
}
