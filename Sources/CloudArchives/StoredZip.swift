import CloudCore
import Foundation

/// A zip archive of files stored as they are (method 0, no compression: clouds and PNGs hardly
/// compress, and no deflate code is needed), planned before it is written so that its size is
/// known up front (an HTTP answer's Content-Length) and then streamed member by member.
///
/// Each member's file is opened and its CRC-32 computed when the archive is planned; the open
/// handle is what is streamed later, so a file removed meanwhile (a derived file evicted) still
/// reads whole. Archives past 4 GiB would need Zip64 and are refused.
public final class StoredZip: @unchecked Sendable {
    private struct Member {
        var name: [UInt8]
        var handle: FileHandle?
        var bytes: [UInt8]
        var size: Int
        var crc: UInt32
        var offset: Int
    }

    private var members: [Member] = []
    private let time: UInt16
    private let date: UInt16
    /// The archive's size in bytes.
    public private(set) var size = 22  // the end-of-central-directory record

    /// An archive whose members carry the modification time `modified` (UTC).
    public init(modified: Date) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: modified)
        time = UInt16((c.hour ?? 0) << 11 | (c.minute ?? 0) << 5 | (c.second ?? 0) / 2)
        date = UInt16(max(0, (c.year ?? 1980) - 1980) << 9 | (c.month ?? 1) << 5 | (c.day ?? 1))
    }

    deinit {
        for member in members { try? member.handle?.close() }
    }

    /// Adds the file at `path` as `name` (a relative path with `/`).
    public func add(_ name: String, file path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CloudError.io(.file(path), "cannot open it for the archive") }
        var crc: UInt32 = 0
        var size = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            crc = chunk.withUnsafeBytes { crc32(crc, $0) }
            size += chunk.count
        }
        try handle.seek(toOffset: 0)
        try append(Member(name: Array(name.utf8), handle: handle, bytes: [], size: size, crc: crc, offset: 0))
    }

    /// Adds `bytes` as `name`.
    public func add(_ name: String, bytes: [UInt8]) throws {
        try append(
            Member(
                name: Array(name.utf8), handle: nil, bytes: bytes, size: bytes.count, crc: bytes.withUnsafeBytes { crc32(0, $0) }, offset: 0
            ))
    }

    private func append(_ member: Member) throws {
        var member = member
        // Everything before the end record: local headers and data, then the central directory.
        let local = 30 + member.name.count
        let central = 46 + member.name.count
        member.offset = members.reduce(0) { $0 + 30 + $1.name.count + $1.size }
        guard size + local + member.size + central <= Int(UInt32.max), members.count < Int(UInt16.max) else {
            throw CloudError.io("the archive would pass 4 GiB or 65,535 members, which needs Zip64")
        }
        size += local + member.size + central
        members.append(member)
    }

    /// Writes the archive to `sink` in pieces of at most 1 MiB.
    public func write(to sink: ([UInt8]) async throws -> Void) async throws {
        for member in members {
            try await sink(localHeader(member))
            if let handle = member.handle {
                var left = member.size
                while left > 0, let chunk = try handle.read(upToCount: min(left, 1 << 20)), !chunk.isEmpty {
                    left -= chunk.count
                    try await sink(Array(chunk))
                }
                guard left == 0 else { throw CloudError.io("a file of the archive shrank while it was sent") }
            } else {
                try await sink(member.bytes)
            }
        }
        var directory: [UInt8] = []
        for member in members { directory += centralHeader(member) }
        let start = members.reduce(0) { $0 + 30 + $1.name.count + $1.size }
        var end = le32(0x0605_4b50) + le16(0) + le16(0) + le16(members.count) + le16(members.count)
        end += le32(directory.count) + le32(start) + le16(0)
        try await sink(directory + end)
    }

    /// Version 2.0, flag 11 (names are UTF-8), stored.
    private func common(_ member: Member) -> [UInt8] {
        le16(0x0800) + le16(0) + le16(Int(time)) + le16(Int(date)) + le32(Int(member.crc)) + le32(member.size) + le32(member.size)
            + le16(member.name.count) + le16(0)
    }

    private func localHeader(_ member: Member) -> [UInt8] {
        le32(0x0403_4b50) + le16(20) + common(member) + member.name
    }

    private func centralHeader(_ member: Member) -> [UInt8] {
        // Made by Unix (3) so that the external attributes give the mode: a plain file, rw-r--r--.
        le32(0x0201_4b50) + le16(3 << 8 | 20) + le16(20) + common(member) + le16(0) + le16(0) + le16(0)
            + le32(0o100644 << 16) + le32(member.offset) + member.name
    }

    private func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xff), UInt8(value >> 8 & 0xff)] }
    private func le32(_ value: Int) -> [UInt8] { le16(value & 0xffff) + le16(value >> 16 & 0xffff) }
}
