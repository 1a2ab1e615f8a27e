import CWriteGuard
import CloudCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The hidden names outputs are written under until they are complete, `.NAME.tmp-PID-RANDOM`
/// (files) and `.NAME.partial-PID-RANDOM` (staged folders), beside their destination so that the
/// final rename stays on one file system. The PID makes them recognisable after a crash: a write
/// removes the ones of the same destination whose process no longer exists (a `kill -9`, a power
/// cut), and the signal handler of CWriteGuard removes this process's own.
enum Temporaries {
    enum Kind: String {
        case file = "tmp"
        case folder = "partial"
    }

    /// Installs the signal handlers that remove this process's temporaries (the CLI calls it
    /// first thing; a library user that wants the same calls it too).
    static func installSignalCleanup() {
        cwg_install()
    }

    /// A new hidden name for `name` in `folder` ("" or ending in "/"), registered with the signal
    /// handler, after removing stale ones of the same name.
    static func name(for name: String, in folder: String, kind: Kind) -> String {
        watch(folder)
        removeStale(of: name, in: folder, kind: kind)
        return "\(folder).\(name).\(kind.rawValue)-\(getpid())-\(String(UInt32.random(in: .min ... .max), radix: 16))"
    }

    /// Creates an empty temporary file for `name` in `folder`, ours alone (O_EXCL), with a new
    /// file's usual permissions, so that a missing or read-only folder fails before any work.
    static func createFile(for name: String, in folder: String, destination: String) throws -> String {
        let path = Self.name(for: name, in: folder, kind: .file)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else {
            let code = errno
            let place = folder.isEmpty ? "the current folder" : "folder \(folder)"
            if code == ENOENT || code == ENOTDIR {
                throw CloudError.io(.file(destination), "cannot write: \(place) does not exist")
            }
            if code == ENAMETOOLONG {
                throw CloudError.badInput(.file(destination), "the name is too long for the file system")
            }
            throw CloudError.io(.file(destination), "cannot write into \(place): \(String(cString: strerror(code)))")
        }
        close(fd)
        return path
    }

    /// Where in-place targets (devices, FIFOs) are staged: $TMPDIR or /tmp.
    static var folderForInPlaceTargets: String {
        let tmp = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return tmp.hasSuffix("/") ? tmp : tmp + "/"
    }

    /// `path` split into its folder (with its trailing "/", or "" for the current folder) and name.
    static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        return (String(path[...slash]), String(path[path.index(after: slash)...]))
    }

    // MARK: - The signal handler's folders

    private static let lock = NSLock()
    nonisolated(unsafe) private static var watched: Set<String> = []
    /// Per folder: stale temporaries found by its one listing, by destination name.
    nonisolated(unsafe) private static var stale: [String: [String: [String]]] = [:]

    private static func watch(_ folder: String) {
        lock.lock()
        defer { lock.unlock() }
        guard watched.insert(folder).inserted else { return }
        // An absolute folder, so that the handler finds it whatever the current folder is then.
        let absolute = folder.hasPrefix("/") ? folder : FileManager.default.currentDirectoryPath + "/" + folder
        _ = cwg_watch_folder(absolute.isEmpty ? "." : absolute)
    }

    // MARK: - Stale temporaries

    /// Removes the temporaries of `name` in `folder` that a process which no longer exists left.
    /// A folder is listed once per process: a sequence of thousands of frames in one folder does
    /// not list it thousands of times (a stale temporary cannot appear later, its process is gone).
    static func removeStale(of name: String, in folder: String, kind: Kind) {
        lock.lock()
        if stale[folder] == nil { stale[folder] = listStale(in: folder) }
        let found = stale[folder]?[name] ?? []
        stale[folder]?[name] = nil
        lock.unlock()
        for entry in found {
            let path = folder + entry
            if entry.contains(".\(Kind.folder.rawValue)-") {
                try? FileManager.default.removeItem(atPath: path)
            } else {
                unlink(path)
            }
        }
    }

    private static func listStale(in folder: String) -> [String: [String]] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder) else { return [:] }
        var byName: [String: [String]] = [:]
        for entry in entries {
            guard let (name, pid) = parse(entry), !isAlive(pid) else { continue }
            byName[name, default: []].append(entry)
        }
        return byName
    }

    /// `.NAME.tmp-PID-HEX` or `.NAME.partial-PID-HEX` -> (NAME, PID); nil for any other name.
    static func parse(_ entry: String) -> (name: String, pid: pid_t)? {
        guard entry.hasPrefix(".") else { return nil }
        let parts = entry.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count >= 3, let pid = pid_t(parts[parts.count - 2]), pid > 0,
            !parts[parts.count - 1].isEmpty, parts[parts.count - 1].allSatisfy(\.isHexDigit)
        else { return nil }
        let head = parts.dropLast(2).joined(separator: "-")
        for kind in [Kind.file, .folder] where head.hasSuffix(".\(kind.rawValue)") {
            let name = String(head.dropFirst().dropLast(kind.rawValue.count + 1))
            return name.isEmpty ? nil : (name, pid)
        }
        return nil
    }

    /// Whether a process `pid` exists (EPERM: it does, someone else's).
    static func isAlive(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno != ESRCH
    }
}
