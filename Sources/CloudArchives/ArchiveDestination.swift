import CloudCore
import Foundation
import SafeIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The folder an archive unpacks into, and the one place that creates anything in it: it keeps
/// the tree the members have made so far (to refuse duplicates and a file where a folder is or
/// the other way round), counts members and bytes against the limits before they are written,
/// and removes everything it made when the extraction fails.
///
/// Nothing is created through a symbolic link: the archive cannot make one, files are opened
/// with O_EXCL | O_NOFOLLOW, and the folder given is expected to be fresh.
final class ArchiveDestination {
    let root: String
    private let origin: String
    private let limits: ArchiveLimits

    private enum Entry {
        case file
        case folder(explicit: Bool)
    }

    /// Every path made so far, relative to `root`.
    private var entries: [String: Entry] = [:]
    /// The top-level names made, in order: what `removeAll` removes.
    private var topLevel: [String] = []
    /// Members read from the archive so far, extracted or skipped: what the limit counts.
    private var listed = 0
    /// Files and folders extracted.
    private(set) var members = 0
    private(set) var files = 0
    private(set) var bytes = 0

    init(root: String, origin: String, limits: ArchiveLimits) {
        self.root = root
        self.origin = origin
        self.limits = limits
    }

    /// Counts one member of the archive (also one that is skipped) against the limit.
    func countMember(_ name: ArchiveMemberName) throws {
        listed += 1
        if listed > limits.maxMembers {
            throw ArchiveError.member(origin, name.raw, "more than \(limits.maxMembers) members in the archive (the limit)")
        }
    }

    /// The single top-level folder, when the top level holds nothing else.
    var topFolder: String? {
        guard topLevel.count == 1, case .folder = entries[topLevel[0]] else { return nil }
        return topLevel[0]
    }

    /// Makes the folder `name` (and its parents).
    func makeFolder(_ name: ArchiveMemberName) throws {
        let path = name.path
        if case .folder(explicit: true) = entries[path] {
            throw ArchiveError.member(origin, name.raw, "listed twice in the archive")
        }
        if case .file = entries[path] {
            throw ArchiveError.member(origin, name.raw, "a folder where the archive already put a file of that name")
        }
        try makeParents(of: name, count: name.components.count)
        entries[path] = .folder(explicit: true)
        members += 1
    }

    /// Creates the file `name`, empty, for a member of `declaredSize` bytes (refused at once
    /// when that is over a limit; the writes are counted again, whatever was declared).
    func createFile(_ name: ArchiveMemberName, declaredSize: Int) throws -> ArchiveFileWriter {
        let path = name.path
        switch entries[path] {
        case .file: throw ArchiveError.member(origin, name.raw, "listed twice in the archive")
        case .folder: throw ArchiveError.member(origin, name.raw, "a file where the archive already put a folder of that name")
        case nil: break
        }
        try checkRoom(for: name, adding: declaredSize, memberBytes: declaredSize)
        try makeParents(of: name, count: name.components.count - 1)
        let full = root + "/" + path
        let fd = open(full, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw creationError(errno, name: name, what: "the file") }
        entries[path] = .file
        if name.components.count == 1 { topLevel.append(path) }
        files += 1
        members += 1
        return ArchiveFileWriter(fd: fd, name: name, destination: self)
    }

    /// Refuses `count` more bytes for a member that has `memberBytes` so far (with them).
    fileprivate func checkRoom(for name: ArchiveMemberName, adding count: Int, memberBytes: Int) throws {
        if memberBytes > limits.maxMemberBytes {
            throw ArchiveError.member(origin, name.raw, "unpacks to more than \(limits.maxMemberBytes) bytes (the limit for one file)")
        }
        if count > limits.maxTotalBytes - bytes {
            throw ArchiveError.member(origin, name.raw, "the archive unpacks to more than \(limits.maxTotalBytes) bytes (the limit)")
        }
    }

    fileprivate func written(_ count: Int) {
        bytes += count
    }

    fileprivate var originName: String { origin }

    /// Makes the first `count` components of `name` as folders where they are missing.
    private func makeParents(of name: ArchiveMemberName, count: Int) throws {
        var path = ""
        for component in name.components.prefix(count) {
            path = path.isEmpty ? component : path + "/" + component
            switch entries[path] {
            case .folder: continue
            case .file: throw ArchiveError.member(origin, name.raw, "goes inside \(path), which the archive made a file")
            case nil: break
            }
            guard mkdir(root + "/" + path, 0o755) == 0 else { throw creationError(errno, name: name, what: "folder \(path)") }
            entries[path] = .folder(explicit: false)
            if !path.contains("/") { topLevel.append(path) }
        }
    }

    private func creationError(_ code: Int32, name: ArchiveMemberName, what: String) -> CloudError {
        if code == ENAMETOOLONG {
            return ArchiveError.member(origin, name.raw, "a name too long for the file system")
        }
        return .io(
            .file(root),
            "cannot create \(what) for member \"\(MessageText.escaped(name.raw))\" of \(origin): \(String(cString: strerror(code)))")
    }

    /// Removes everything made so far: the folder given is left as it was found.
    func removeAll() {
        for name in topLevel.reversed() {
            try? FileManager.default.removeItem(atPath: root + "/" + name)
        }
        topLevel.removeAll()
        entries.removeAll()
    }
}

/// One member's file being written, chunk by chunk, each counted before it is written.
final class ArchiveFileWriter {
    private var fd: Int32
    private let name: ArchiveMemberName
    private let destination: ArchiveDestination
    private(set) var written = 0

    fileprivate init(fd: Int32, name: ArchiveMemberName, destination: ArchiveDestination) {
        self.fd = fd
        self.name = name
        self.destination = destination
    }

    deinit {
        if fd >= 0 { _ = close(fd) }
    }

    func write(_ chunk: UnsafeRawBufferPointer) throws {
        guard !chunk.isEmpty else { return }
        try destination.checkRoom(for: name, adding: chunk.count, memberBytes: written + chunk.count)
        if let code = writeAll(fd, chunk) {
            throw CloudError.io(
                .file("\(destination.root)/\(name.path)"),
                "cannot write member of \(destination.originName): \(String(cString: strerror(code)))")
        }
        written += chunk.count
        destination.written(chunk.count)
    }

    /// Closes the file (a failure of close is a failed write: NFS and quotas report there).
    func finish() throws {
        let result = close(fd)
        let code = errno
        fd = -1
        if result != 0 {
            throw CloudError.io(
                .file("\(destination.root)/\(name.path)"),
                "cannot write member of \(destination.originName): \(String(cString: strerror(code)))")
        }
    }
}
