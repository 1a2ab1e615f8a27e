import CloudCore

/// A member's path as the archive stores it, checked and split into its components, so that it
/// can only ever name something inside the destination folder.
///
/// Refused: an absolute path (`/etc/x`), a `..` component anywhere (even one that would stay
/// inside), a backslash (a Windows separator that other tools would follow out of the folder, or a
/// name that means different things to different unpackers), NUL and other control characters,
/// bytes that are not UTF-8, and paths over the limits. `.` components and repeated slashes
/// are dropped (`tar -C dir -cf x.tar .` stores `./color/00000.jpg`); a trailing slash marks a
/// folder.
struct ArchiveMemberName {
    /// The name as stored (decoded leniently, for messages only; a long one is cut to its first
    /// 256 bytes, so that a megabyte-long pax path does not make a megabyte message).
    let raw: String
    /// The components, none empty, `.` or `..`; empty for the destination itself (`./`).
    let components: [String]
    let endsWithSlash: Bool

    var path: String { components.joined(separator: "/") }

    init(bytes: some Collection<UInt8>, origin: String, limits: ArchiveLimits) throws {
        let raw =
            bytes.count > 256
            ? String(decoding: bytes.prefix(256), as: UTF8.self) + "…"
            : String(decoding: bytes, as: UTF8.self)
        self.raw = raw
        let problem = { (what: String) in ArchiveError.member(origin, raw, what) }
        if bytes.isEmpty { throw problem("an empty name") }
        if bytes.count > limits.maxPathBytes {
            throw problem("a name longer than the limit of \(limits.maxPathBytes) bytes")
        }
        if bytes.contains(0) { throw problem("a NUL byte in the name") }
        if bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) { throw problem("a control character in the name") }
        if bytes.contains(UInt8(ascii: "\\")) {
            throw problem("a backslash in the name (a Windows separator; only / separates folders)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw problem("a name that is not UTF-8") }
        if text.hasPrefix("/") { throw problem("an absolute path; members must be relative") }
        var components: [String] = []
        for part in text.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." { throw problem("a '..' component, which could reach outside the folder") }
            if part.utf8.count > 255 { throw problem("a path component longer than 255 bytes") }
            components.append(String(part))
        }
        if components.count > limits.maxPathDepth {
            throw problem("\(components.count) levels deep, more than the limit of \(limits.maxPathDepth)")
        }
        self.components = components
        endsWithSlash = text.hasSuffix("/")
    }
}

/// The archive's errors, all bad input naming the archive (and the member, when there is one).
enum ArchiveError {
    /// "ORIGIN: member "NAME": WHAT"; the name is escaped so that it cannot break the message's line.
    static func member(_ origin: String, _ name: String, _ what: String) -> CloudError {
        .badInput(.file(origin), "member \"\(MessageText.escaped(name))\": \(what)")
    }

    static func archive(_ origin: String, _ what: String) -> CloudError {
        .badInput(.file(origin), "\(what)")
    }
}
