/// A zip file's central directory: where each member's data is, its sizes and CRC-32, as the
/// archive's end says. It is the authority; each local header must agree with it (ZipReader).
///
/// Zip64 (archives or members past 4 GiB or 65 535 entries) is refused: the limits on what may be
/// unpacked are lower anyway, and a reader that half-handled it would be a way to lie about sizes.
/// So are multi-disk archives, and data before the first member (self-extracting archives), whose
/// offsets would all be shifted.
import SafeIO

struct ZipDirectory {
    struct Entry {
        var name: [UInt8]
        var flags: UInt16
        var method: UInt16
        var crc: UInt32
        var compressedSize: Int
        var size: Int
        var localOffset: Int
        /// The Unix file type bits (S_IFMT) of the mode, when the archive was made on a Unix
        /// system and recorded one; 0 otherwise.
        var unixType: UInt32
    }

    static let endSignature: UInt32 = 0x0605_4B50
    static let entrySignature: UInt32 = 0x0201_4B50
    static let zip64LocatorSignature: UInt32 = 0x0706_4B50
    static let endSize = 22
    static let entrySize = 46

    /// Where the central directory starts: member data ends before it.
    let start: Int
    let entries: [Entry]

    /// Reads the end record and the directory; `limits` bound the entry count before any entry
    /// is read, and each name's length before it is read.
    init(file: InputFile, origin: String, limits: ArchiveLimits) throws {
        let refuse = { (what: String) in ArchiveError.archive(origin, what) }
        // The end record is the last 22 bytes plus a comment of up to 65 535 bytes: the last
        // signature whose comment length reaches exactly the end of the file is the one.
        let tailStart = max(0, file.size - (Self.endSize + 0xFFFF))
        let tail = try file.read(at: tailStart, count: file.size - tailStart)
        var endAt: Int?
        var i = tail.count - Self.endSize
        while i >= 0 {
            if tail.u32(i) == Self.endSignature && i + Self.endSize + Int(tail.u16(i + 20)) == tail.count {
                endAt = i
                break
            }
            i -= 1
        }
        guard let e = endAt else {
            throw refuse("no zip end-of-directory record at the end of the file (truncated, or not a zip)")
        }
        let endOffset = tailStart + e
        if e >= 20 && tail.u32(e - 20) == Self.zip64LocatorSignature {
            throw refuse("a zip64 archive, which is not accepted (archives past 4 GiB or 65 535 members)")
        }
        let (disk, directoryDisk) = (tail.u16(e + 4), tail.u16(e + 6))
        let (onDisk, count) = (Int(tail.u16(e + 8)), Int(tail.u16(e + 10)))
        let (size, start) = (Int(tail.u32(e + 12)), Int(tail.u32(e + 16)))
        if count == 0xFFFF || size == 0xFFFF_FFFF || start == 0xFFFF_FFFF {
            throw refuse("a zip64 archive, which is not accepted (archives past 4 GiB or 65 535 members)")
        }
        guard disk == 0, directoryDisk == 0, onDisk == count else {
            throw refuse("a multi-part (spanned) zip archive, which is not accepted")
        }
        guard start + size == endOffset else {
            throw refuse(
                "the zip central directory is not where the end record says (data before or after it: truncated, or a self-extracting archive)"
            )
        }
        if count > limits.maxMembers {
            throw refuse("\(count) members, more than the limit of \(limits.maxMembers)")
        }
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        var at = start
        for index in 0..<count {
            let fixed = try file.read(at: at, count: Self.entrySize)
            guard fixed.count == Self.entrySize, at + Self.entrySize <= endOffset, fixed.u32(0) == Self.entrySignature else {
                throw refuse("zip central directory entry \(index + 1) of \(count) is corrupt")
            }
            let (nameLength, extraLength, commentLength) = (Int(fixed.u16(28)), Int(fixed.u16(30)), Int(fixed.u16(32)))
            let next = at + Self.entrySize + nameLength + extraLength + commentLength
            guard next <= endOffset else { throw refuse("zip central directory entry \(index + 1) of \(count) is corrupt") }
            // Every name is checked before anything is extracted. One over the limit is read only
            // so far (enough to be refused, and named as far as messages show names).
            let name = try file.read(at: at + Self.entrySize, count: min(nameLength, max(limits.maxPathBytes + 1, 257)))
            _ = try ArchiveMemberName(bytes: name, origin: origin, limits: limits)
            let madeBy = fixed.u16(4) >> 8
            let mode = fixed.u32(38) >> 16
            entries.append(
                Entry(
                    name: name, flags: fixed.u16(8), method: fixed.u16(10), crc: fixed.u32(16),
                    compressedSize: Int(fixed.u32(20)), size: Int(fixed.u32(24)),
                    localOffset: Int(fixed.u32(42)),
                    // 3: Unix, 19: macOS; both keep st_mode in the high half.
                    unixType: madeBy == 3 || madeBy == 19 ? mode & 0o170000 : 0))
            if fixed.u16(34) != 0 { throw refuse("a multi-part (spanned) zip archive, which is not accepted") }
            at = next
        }
        guard at == endOffset else { throw refuse("the zip central directory holds more than its \(count) entries say") }
        self.start = start
        self.entries = entries
    }
}

extension Array where Element == UInt8 {
    /// Little-endian fields at byte `i` (the caller has checked the length).
    func u16(_ i: Int) -> UInt16 { UInt16(self[i]) | UInt16(self[i + 1]) << 8 }
    func u32(_ i: Int) -> UInt32 { UInt32(u16(i)) | UInt32(u16(i + 2)) << 16 }
}
