import CloudCore
import SafeIO

/// Extracts a tar archive (POSIX ustar, pax, GNU) member by member, in one pass over the file.
///
/// Regular files and folders are extracted. GNU long names ('L') and pax extended headers ('x')
/// give the next member's path (and pax its size); pax global headers ('g') and GNU long link
/// names ('K') are read and set aside. Every other kind of member is refused, never skipped
/// silently: hard and symbolic links (they could point outside the folder, or at a file the
/// archive has not written yet), devices and FIFOs, GNU sparse, multi-volume and dump-dir members.
/// The archive must end with its end-of-archive block: a file cut at a member boundary is
/// truncated, not shorter.
struct TarReader {
    let file: InputFile
    let origin: String
    let destination: ArchiveDestination
    let limits: ArchiveLimits
    let buffer: UnsafeMutableRawBufferPointer

    /// Extension headers are read whole; a pax header with more than this is not one of a file's.
    static let maxExtensionBytes = 1 << 20

    private var offset = 0

    init(
        file: InputFile, origin: String, destination: ArchiveDestination, limits: ArchiveLimits,
        buffer: UnsafeMutableRawBufferPointer
    ) {
        self.file = file
        self.origin = origin
        self.destination = destination
        self.limits = limits
        self.buffer = buffer
    }

    mutating func extract() throws {
        var longName: [UInt8]?
        var pax: TarPaxRecords?
        while true {
            let at = offset
            guard let block = try readBlock() else {
                throw ArchiveError.archive(origin, "ends at byte \(at) without tar's end-of-archive block (truncated)")
            }
            if TarHeader.isZero(block) { return }
            guard let header = TarHeader(block) else {
                throw ArchiveError.archive(origin, "the tar header at byte \(at) is corrupt (bad magic or checksum)")
            }
            guard var size = header.size else {
                throw ArchiveError.archive(origin, "the tar header at byte \(at) has a size that is not a number")
            }
            switch header.typeFlag {
            case UInt8(ascii: "L"):
                // Read up to 4 KiB even under a lower limit, so that a name over it is refused by name.
                longName = try readExtension(size, limit: max(limits.maxPathBytes + 1, 4096), what: "GNU long name", at: at)
                longName = Array(longName!.prefix { $0 != 0 })
                continue
            case UInt8(ascii: "K"):
                _ = try readExtension(size, limit: max(limits.maxPathBytes + 1, 4096), what: "GNU long link name", at: at)
                continue
            case UInt8(ascii: "x"):
                let records = try readExtension(size, limit: Self.maxExtensionBytes, what: "pax extended header", at: at)
                guard let parsed = TarPaxRecords(records) else {
                    throw ArchiveError.archive(origin, "the pax extended header at byte \(at) does not parse")
                }
                pax = parsed
                continue
            case UInt8(ascii: "g"):
                // Global defaults (a comment, a charset); no path or size of a member is taken from them.
                _ = try readExtension(size, limit: Self.maxExtensionBytes, what: "pax global header", at: at)
                continue
            default:
                break
            }
            let name = try ArchiveMemberName(bytes: pax?.path ?? longName ?? header.name, origin: origin, limits: limits)
            if let paxSize = pax?.size { size = paxSize }
            let sparse = pax?.isSparse ?? false
            longName = nil
            pax = nil
            try destination.countMember(name)
            try extractMember(name, type: header.typeFlag, size: size, sparse: sparse)
        }
    }

    private mutating func extractMember(_ name: ArchiveMemberName, type: UInt8, size: Int, sparse: Bool) throws {
        let origin = origin
        let refuse = { (what: String) in ArchiveError.member(origin, name.raw, what) }
        if size > file.size - offset {
            throw refuse("its \(size) bytes go past the end of the archive (truncated)")
        }
        switch type {
        case UInt8(ascii: "0"), 0, UInt8(ascii: "7"):
            if sparse { throw refuse("a GNU sparse file, which is not extracted") }
            // Old tars mark folders by a trailing slash alone.
            if name.endsWithSlash && size == 0 && type == 0 { return try makeFolder(name) }
            if name.endsWithSlash || name.components.isEmpty { throw refuse("a file named like a folder") }
            if name.components.first == ArchiveExtractor.macMetadataFolder { return try skip(size + Self.padding(size)) }
            let writer = try destination.createFile(name, declaredSize: size)
            try copy(size, to: writer, name: name)
            try writer.finish()
            try skip(Self.padding(size))
        case UInt8(ascii: "5"):
            if size != 0 { throw refuse("a folder with \(size) bytes of data") }
            try makeFolder(name)
        case UInt8(ascii: "1"): throw refuse("a hard link, which is not extracted (links could reach outside the folder)")
        case UInt8(ascii: "2"): throw refuse("a symbolic link, which is not extracted (links could reach outside the folder)")
        case UInt8(ascii: "3"): throw refuse("a character device, which is not extracted")
        case UInt8(ascii: "4"): throw refuse("a block device, which is not extracted")
        case UInt8(ascii: "6"): throw refuse("a FIFO, which is not extracted")
        case UInt8(ascii: "S"): throw refuse("a GNU sparse file, which is not extracted")
        case UInt8(ascii: "M"), UInt8(ascii: "V"), UInt8(ascii: "N"), UInt8(ascii: "D"):
            throw refuse(
                "a GNU special member (type '\(Character(Unicode.Scalar(type)))': multi-volume, volume label or dump folder), which is not extracted"
            )
        default:
            let shown = (0x21...0x7E).contains(type) ? "'\(Character(Unicode.Scalar(type)))'" : "byte \(type)"
            throw refuse("a member of type \(shown), which is not extracted")
        }
    }

    private mutating func makeFolder(_ name: ArchiveMemberName) throws {
        // "./", the destination itself, is nothing to make.
        guard !name.components.isEmpty, name.components.first != ArchiveExtractor.macMetadataFolder else { return }
        try destination.makeFolder(name)
    }

    /// The next header block, nil at the end of the file.
    private mutating func readBlock() throws -> [UInt8]? {
        let block = try file.read(at: offset, count: TarHeader.blockSize)
        if block.isEmpty { return nil }
        guard block.count == TarHeader.blockSize else {
            throw ArchiveError.archive(origin, "ends inside a tar header at byte \(offset) (truncated)")
        }
        offset += TarHeader.blockSize
        return block
    }

    /// An extension header's data, read whole: it is bounded by `limit` first.
    private mutating func readExtension(_ size: Int, limit: Int, what: String, at: Int) throws -> [UInt8] {
        guard size <= limit else {
            throw ArchiveError.archive(origin, "the \(what) at byte \(at) has \(size) bytes, more than \(limit)")
        }
        let bytes = try file.read(at: offset, count: size)
        guard bytes.count == size else {
            throw ArchiveError.archive(origin, "ends inside the \(what) at byte \(at) (truncated)")
        }
        offset += size
        try skip(Self.padding(size))
        return bytes
    }

    /// Streams `size` bytes of data to `writer` in buffer-sized chunks.
    private mutating func copy(_ size: Int, to writer: ArchiveFileWriter, name: ArchiveMemberName) throws {
        var remaining = size
        while remaining > 0 {
            let chunk = UnsafeMutableRawBufferPointer(rebasing: buffer[..<min(buffer.count, remaining)])
            let n = try file.read(at: offset, into: chunk)
            guard n == chunk.count else {
                throw ArchiveError.member(origin, name.raw, "its data ends early (truncated archive)")
            }
            try writer.write(UnsafeRawBufferPointer(chunk))
            offset += n
            remaining -= n
        }
    }

    private mutating func skip(_ count: Int) throws {
        guard count <= file.size - offset else {
            throw ArchiveError.archive(origin, "ends inside a member's data (truncated)")
        }
        offset += count
    }

    /// The zeros after `size` bytes of data, up to the next block.
    static func padding(_ size: Int) -> Int {
        (TarHeader.blockSize - size % TarHeader.blockSize) % TarHeader.blockSize
    }
}
