/// How much an uploaded archive may unpack to. Every limit is checked while reading, before the
/// bytes or entries it counts are written: an archive over a limit stops at the first member
/// that crosses it, whatever its headers claimed.
public struct ArchiveLimits: Equatable, Sendable {
    /// Bytes of all files together, as unpacked.
    public var maxTotalBytes: Int
    /// Files and folders listed in the archive (each counts once, whether extracted or skipped).
    public var maxMembers: Int
    /// Bytes of any one file, as unpacked.
    public var maxMemberBytes: Int
    /// Folders a member's path may go down (`a/b/c.png` is 3 deep).
    public var maxPathDepth: Int
    /// Bytes of a member's path (UTF-8), well under the system's PATH_MAX once joined to the
    /// destination folder.
    public var maxPathBytes: Int

    public init(
        maxTotalBytes: Int = 4 << 30, maxMembers: Int = 100_000, maxMemberBytes: Int = 4 << 30,
        maxPathDepth: Int = 32, maxPathBytes: Int = 1024
    ) {
        self.maxTotalBytes = maxTotalBytes
        self.maxMembers = maxMembers
        self.maxMemberBytes = maxMemberBytes
        self.maxPathDepth = maxPathDepth
        self.maxPathBytes = maxPathBytes
    }

    /// 4 GiB in all and per file, 100 000 members, 32 folders deep, 1024-byte paths: room for a
    /// long capture bundle or a TUM sequence, not for a disk-filling bomb.
    public static let standard = ArchiveLimits()
}
