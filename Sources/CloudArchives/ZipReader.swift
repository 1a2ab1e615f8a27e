import CloudCore
import SafeIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Extracts a zip archive from its central directory (ZipDirectory), member by member in the
/// order of their data in the file.
///
/// Methods stored (0) and deflate (8) are extracted; other methods, encrypted members, symbolic
/// links and other special files (by the Unix mode a Unix zip records) are refused. Each member's
/// local header must agree with the directory (name, method, and sizes and CRC unless a data
/// descriptor carries them, which must then agree too), and members may not overlap: a "zip
/// bomb" that points many entries at one compressed stream is refused as such. The directory's
/// size is trusted only as a limit: inflating stops one byte past it, and a member that makes
/// more or fewer bytes, or bytes whose CRC-32 differs, is refused.
struct ZipReader {
    let file: InputFile
    let origin: String
    let destination: ArchiveDestination
    let limits: ArchiveLimits
    let buffer: UnsafeMutableRawBufferPointer

    static let localSignature: UInt32 = 0x0403_4B50
    static let descriptorSignature: UInt32 = 0x0807_4B50
    static let localSize = 30

    func extract() throws {
        let directory = try ZipDirectory(file: file, origin: origin, limits: limits)
        // In file order, so that each member's span can be checked against the one before it.
        var previousEnd = 0
        // Ties (entries sharing data) keep the directory's order, so the later one is the one refused.
        let order = directory.entries.indices.sorted {
            (directory.entries[$0].localOffset, $0) < (directory.entries[$1].localOffset, $1)
        }
        for entry in order.map({ directory.entries[$0] }) {
            let name = try ArchiveMemberName(bytes: entry.name, origin: origin, limits: limits)
            try destination.countMember(name)
            let refuse = { (what: String) in ArchiveError.member(origin, name.raw, what) }
            if entry.localOffset < previousEnd {
                throw refuse("its data overlaps another member's (a zip bomb's trick)")
            }
            previousEnd = try extractMember(entry, name: name, dataEnd: directory.start, refuse: refuse)
        }
    }

    /// Extracts one member; returns where its data (and data descriptor) ends.
    private func extractMember(
        _ entry: ZipDirectory.Entry, name: ArchiveMemberName, dataEnd: Int,
        refuse: (String) -> CloudError
    ) throws -> Int {
        if entry.flags & 0x0001 != 0 || entry.flags & 0x0040 != 0 || entry.flags & 0x2000 != 0 {
            throw refuse("encrypted, which is not accepted")
        }
        if entry.compressedSize == 0xFFFF_FFFF || entry.size == 0xFFFF_FFFF || entry.localOffset == 0xFFFF_FFFF {
            throw refuse("a zip64 member, which is not accepted (members past 4 GiB)")
        }
        switch Int32(entry.unixType) {
        case 0, Int32(S_IFREG), Int32(S_IFDIR): break
        case Int32(S_IFLNK): throw refuse("a symbolic link, which is not extracted (links could reach outside the folder)")
        default: throw refuse("a device, FIFO or socket, which is not extracted")
        }
        guard entry.method == 0 || entry.method == 8 else {
            throw refuse("compressed with zip method \(entry.method), which is not accepted (only stored and deflate)")
        }
        let dataStart = try checkLocalHeader(entry, dataEnd: dataEnd, refuse: refuse)
        guard entry.compressedSize <= dataEnd - dataStart else {
            throw refuse("its \(entry.compressedSize) bytes of data go past the central directory (truncated or corrupt)")
        }
        var end = dataStart + entry.compressedSize
        if entry.flags & 0x0008 != 0 {
            end = try checkDescriptor(entry, at: end, dataEnd: dataEnd, refuse: refuse)
        }

        let isFolder = name.endsWithSlash || entry.unixType == UInt32(S_IFDIR)
        if isFolder {
            guard entry.size == 0 else { throw refuse("a folder with \(entry.size) bytes of data") }
            if !name.components.isEmpty && name.components.first != ArchiveExtractor.macMetadataFolder {
                try destination.makeFolder(name)
            }
            return end
        }
        if name.components.isEmpty { throw refuse("a file named like a folder") }
        if name.components.first == ArchiveExtractor.macMetadataFolder { return end }
        let writer = try destination.createFile(name, declaredSize: entry.size)
        let crc =
            entry.method == 0
            ? try copyStored(entry, from: dataStart, to: writer, refuse: refuse)
            : try inflate(entry, from: dataStart, to: writer, refuse: refuse)
        if crc != entry.crc {
            throw refuse("CRC-32 \(hex(crc)) of the data, not \(hex(entry.crc)) as the zip directory says (corrupt)")
        }
        try writer.finish()
        return end
    }

    /// Checks the local header against the directory entry; returns where the data starts.
    private func checkLocalHeader(_ entry: ZipDirectory.Entry, dataEnd: Int, refuse: (String) -> CloudError) throws -> Int {
        let header = try file.read(at: entry.localOffset, count: Self.localSize)
        guard header.count == Self.localSize, entry.localOffset + Self.localSize <= dataEnd, header.u32(0) == Self.localSignature else {
            throw refuse("no local header where the zip directory says (corrupt or truncated)")
        }
        let (nameLength, extraLength) = (Int(header.u16(26)), Int(header.u16(28)))
        let dataStart = entry.localOffset + Self.localSize + nameLength + extraLength
        guard dataStart <= dataEnd else { throw refuse("its local header runs past the central directory (corrupt)") }
        // Tools differ on which of two disagreeing names they use: refuse both.
        let localName = try file.read(at: entry.localOffset + Self.localSize, count: min(nameLength, entry.name.count + 1))
        guard localName == entry.name else {
            throw refuse(
                "its local header names \"\(MessageText.escaped(String(decoding: localName, as: UTF8.self)))\" (a disagreeing name)")
        }
        guard header.u16(8) == entry.method, header.u16(6) & 0x0008 == entry.flags & 0x0008 else {
            throw refuse("its local header disagrees with the zip directory on the method or flags (corrupt)")
        }
        if entry.flags & 0x0008 == 0 {
            // Both sizes 0xFFFFFFFF: they are in a zip64 extra field (Python's force_zip64 and
            // `zip -fz` write one for any member); the directory's sizes, under 4 GiB, are used.
            let sizes = (Int(header.u32(18)), Int(header.u32(22)))
            let inZip64Extra = sizes == (0xFFFF_FFFF, 0xFFFF_FFFF)
            guard header.u32(14) == entry.crc, inZip64Extra || sizes == (entry.compressedSize, entry.size) else {
                throw refuse("its local header disagrees with the zip directory on the sizes or CRC (corrupt)")
            }
        }
        return dataStart
    }

    /// Checks the data descriptor after the data (its signature is optional); returns where it ends.
    private func checkDescriptor(_ entry: ZipDirectory.Entry, at offset: Int, dataEnd: Int, refuse: (String) -> CloudError) throws -> Int {
        let bytes = try file.read(at: offset, count: min(16, max(0, dataEnd - offset)))
        let signed = bytes.count >= 4 && bytes.u32(0) == Self.descriptorSignature
        let base = signed ? 4 : 0
        guard bytes.count >= base + 12 else { throw refuse("its data descriptor is missing (truncated)") }
        guard bytes.u32(base) == entry.crc, Int(bytes.u32(base + 4)) == entry.compressedSize, Int(bytes.u32(base + 8)) == entry.size else {
            throw refuse("its data descriptor disagrees with the zip directory on the sizes or CRC (corrupt)")
        }
        return offset + base + 12
    }

    /// Copies a stored member; returns its CRC-32.
    private func copyStored(
        _ entry: ZipDirectory.Entry, from start: Int, to writer: ArchiveFileWriter,
        refuse: (String) -> CloudError
    ) throws -> UInt32 {
        guard entry.compressedSize == entry.size else {
            throw refuse("stored with \(entry.compressedSize) bytes of data for a size of \(entry.size) (corrupt)")
        }
        var crc: UInt32 = 0
        var done = 0
        while done < entry.size {
            let chunk = UnsafeMutableRawBufferPointer(rebasing: buffer[..<min(buffer.count, entry.size - done)])
            guard try file.read(at: start + done, into: chunk) == chunk.count else { throw refuse("its data ends early (truncated)") }
            crc = crc32(crc, UnsafeRawBufferPointer(chunk))
            try writer.write(UnsafeRawBufferPointer(chunk))
            done += chunk.count
        }
        return crc
    }

    /// Inflates a deflate member, never making more than its declared size plus one byte (the
    /// byte that proves the size a lie); returns its CRC-32.
    private func inflate(
        _ entry: ZipDirectory.Entry, from start: Int, to writer: ArchiveFileWriter,
        refuse: (String) -> CloudError
    ) throws -> UInt32 {
        // The buffer's first half takes compressed input, the second inflated output.
        let half = buffer.count / 2
        let input = UnsafeMutableRawBufferPointer(rebasing: buffer[..<half])
        let output = UnsafeMutableRawBufferPointer(rebasing: buffer[half...])
        let inflater = try ZipInflater()
        var crc: UInt32 = 0
        var read = 0
        var made = 0
        var pending = UnsafeRawBufferPointer(rebasing: input[..<0])
        while true {
            if pending.isEmpty && read < entry.compressedSize {
                let chunk = UnsafeMutableRawBufferPointer(rebasing: input[..<min(half, entry.compressedSize - read)])
                guard try file.read(at: start + read, into: chunk) == chunk.count else { throw refuse("its data ends early (truncated)") }
                read += chunk.count
                pending = UnsafeRawBufferPointer(chunk)
            }
            let room = UnsafeMutableRawBufferPointer(rebasing: output[..<min(output.count, entry.size + 1 - made)])
            let (consumed, produced, step) = try inflater.inflate(pending, into: room, corrupt: refuse)
            pending = UnsafeRawBufferPointer(rebasing: pending[consumed...])
            made += produced
            if made > entry.size {
                throw refuse("inflates past its declared size of \(entry.size) bytes (a zip bomb or corrupt)")
            }
            let out = UnsafeRawBufferPointer(rebasing: room[..<produced])
            crc = crc32(crc, out)
            try writer.write(out)
            if step == .end {
                guard pending.isEmpty && read == entry.compressedSize else {
                    throw refuse("its deflate data ends before its compressed size of \(entry.compressedSize) bytes (corrupt)")
                }
                guard made == entry.size else {
                    throw refuse("inflates to \(made) bytes, not its declared size of \(entry.size) (corrupt)")
                }
                return crc
            }
            // All input given and no progress: the stream needs bytes the member does not have.
            if consumed == 0 && produced == 0 && pending.isEmpty && read == entry.compressedSize {
                throw refuse("its deflate data ends early (truncated or corrupt)")
            }
            if consumed == 0 && produced == 0 && !pending.isEmpty {
                throw refuse("its deflate data does not inflate (corrupt)")
            }
        }
    }

    private func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
