import CWriteGuard
import CloudCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// All the outputs of one run land together or not at all: a turntable's frames and
/// its animated PNG, a sequence's numbered files, `capture --ply --pcd --preview --bundle`.
///
/// Inside `OutputSet.all { ... }` every `AtomicFile` write and every `StagedDirectory.commit()`
/// only stages: the finished temporaries wait under their hidden names. When the body returns,
/// they are renamed into place one after the other, with signals held; before a rename replaces
/// an existing file, that file is hard-linked to a hidden backup name, so that a rename failing
/// part-way puts every earlier output back as it was. When the body throws, every temporary is
/// removed and no destination is touched. Outputs that are written in place (devices, FIFOs,
/// /dev/stdout) are copied last, since bytes sent down a pipe cannot be taken back.
public final class OutputSet: @unchecked Sendable {
    /// The set that `AtomicFile` writes on this task join; nil outside `all`.
    @TaskLocal static var current: OutputSet?

    enum Item {
        case file(temporary: String, target: OutputTarget)
        case folder(staging: String, destination: String, what: String)
    }

    private let lock = NSLock()
    private var items: [Item] = []
    private let subject: String

    private init(subject: String) {
        self.subject = subject
    }

    /// Runs `body`; the outputs written inside it appear together when it returns, or, when it
    /// throws (or a rename fails), none do and existing files keep their content. `subject`
    /// names the outputs in the line a signal prints. Nested calls join the outer set.
    public static func all<T>(subject: String, _ body: () throws -> T) throws -> T {
        if current != nil { return try body() }
        let set = OutputSet(subject: subject)
        WriteInProgress.begin(subject)
        defer { WriteInProgress.end() }
        let value: T
        do {
            value = try $current.withValue(set) { try body() }
        } catch {
            set.discard()
            throw error
        }
        try set.commit()
        return value
    }

    func add(_ item: Item) {
        lock.lock()
        items.append(item)
        lock.unlock()
    }

    /// The staged temporary that will become `destination`, if this set holds one.
    func staged(_ destination: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        for case .file(let temporary, let target) in items.reversed() where target.given == destination { return temporary }
        return nil
    }

    /// Removes every staged output, touching no destination.
    private func discard() {
        lock.lock()
        let staged = items
        items = []
        lock.unlock()
        for item in staged { Self.remove(item) }
    }

    private static func remove(_ item: Item) {
        switch item {
        case .file(let temporary, _): unlink(temporary)
        case .folder(let staging, _, _): try? FileManager.default.removeItem(atPath: staging)
        }
    }

    private func commit() throws {
        lock.lock()
        let staged = items
        items = []
        lock.unlock()
        try Self.commit(staged)
    }

    /// What a committed output needs to be undone.
    private enum Undo {
        case restore(backup: String, over: String)
        case remove(String)
        case removeFolder(String, recreateEmpty: Bool)
    }

    /// Copies the in-place outputs, then renames every other staged output into place; on the
    /// first failure undoes what was done and removes what was not, and throws.
    ///
    /// Copies go first and without holding signals: a FIFO may wait for its reader as long as it
    /// likes, and a signal then removes every temporary, so that no file was replaced. Bytes sent
    /// down a pipe cannot be taken back, but a rename that fails after them is rare (the folders
    /// were checked when the temporaries were created).
    static func commit(_ staged: [Item]) throws {
        var pending = staged
        for case .file(let temporary, let target) in staged where target.kind == .inPlace {
            do {
                try target.copy(from: temporary)
            } catch {
                for item in staged { remove(item) }
                throw error
            }
            unlink(temporary)
        }
        pending.removeAll(where: isInPlace)
        cwg_commit_begin()
        var undo: [Undo] = []
        do {
            while let item = pending.first {
                switch item {
                case .file(let temporary, let target):
                    undo.append(try replace(target, with: temporary))
                case .folder(let staging, let destination, let what):
                    undo.append(try move(staging, to: destination, what: what))
                }
                pending.removeFirst()
            }
        } catch {
            for step in undo.reversed() { rollBack(step) }
            for item in pending.dropFirst() { remove(item) }
            cwg_commit_end(0)
            throw error
        }
        for case .restore(let backup, _) in undo { unlink(backup) }
        cwg_commit_end(1)
    }

    private static func isInPlace(_ item: Item) -> Bool {
        if case .file(_, let target) = item { return target.kind == .inPlace }
        return false
    }

    /// Renames `temporary` over the target, keeping a hard link to the file it replaces.
    private static func replace(_ target: OutputTarget, with temporary: String) throws -> Undo {
        var status = stat()
        var backup: String?
        if lstat(target.path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG {
            let (folder, name) = Temporaries.split(target.path)
            let candidate = Temporaries.name(for: name, in: folder, kind: .file)
            // A file system without hard links (FAT) still gets the rename, without the way back.
            if link(target.path, candidate) == 0 { backup = candidate }
        }
        guard rename(temporary, target.path) == 0 else {
            let code = errno
            if let backup { unlink(backup) }
            unlink(temporary)
            throw target.failure("cannot rename the finished temporary file into place", code)
        }
        return backup.map { .restore(backup: $0, over: target.path) } ?? .remove(target.path)
    }

    /// Moves a staged folder to `destination`, which is absent or an empty folder.
    private static func move(_ staging: String, to destination: String, what: String) throws -> Undo {
        var replacedEmpty = false
        var status = stat()
        if stat(destination, &status) == 0 {
            guard (status.st_mode & S_IFMT) == S_IFDIR, rmdir(destination) == 0 else {
                try? FileManager.default.removeItem(atPath: staging)
                throw CloudError.badInput(
                    .file(destination), "files appeared in it while the \(what) was being written; nothing was written")
            }
            replacedEmpty = true
        }
        guard rename(staging, destination) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(atPath: staging)
            if replacedEmpty { mkdir(destination, 0o777) }
            throw CloudError.io(.file(destination), "cannot move the finished \(what) into place: \(String(cString: strerror(code)))")
        }
        return .removeFolder(destination, recreateEmpty: replacedEmpty)
    }

    private static func rollBack(_ step: Undo) {
        switch step {
        case .restore(let backup, let path): rename(backup, path)
        case .remove(let path): unlink(path)
        case .removeFolder(let path, let recreateEmpty):
            try? FileManager.default.removeItem(atPath: path)
            if recreateEmpty { mkdir(path, 0o777) }
        }
    }
}

/// Tells the signal handler that outputs are being written (and names them for its message).
/// Writes nest (a capture's early `checkWritable` inside its set): the innermost names them.
enum WriteInProgress {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var subjects: [String] = []

    static func begin(_ subject: String) {
        let fitted = MessageText.fitted(subject, limit: 200)
        lock.lock()
        defer { lock.unlock() }
        subjects.append(fitted)
        cwg_write_begin(fitted)
    }

    static func end() {
        lock.lock()
        defer { lock.unlock() }
        _ = subjects.popLast()
        if let outer = subjects.last {
            cwg_write_end(outer)
        } else {
            cwg_write_end(nil)
        }
    }
}
