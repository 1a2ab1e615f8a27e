import CloudCore
import Foundation

/// The server's paths as the client knows them: an uploaded file by its part's name, a file of an
/// unpacked archive by its path inside the archive ("bundle/depth/0001.png"). Errors and warnings
/// are renamed by their subject and the files their reason names, each looked up in the table of
/// uploaded files or placed under the archive's root by its path, never found in a message's
/// text: a client never sees the server's disk.
struct ClientPaths: Sendable {
    /// Each uploaded file's path on the server, and its part's name.
    var parts: [String: String] = [:]
    /// Where an uploaded archive was unpacked, and the name the client knows it by.
    var archiveRoot: String?
    /// The archive's part, which names its files for the client (as `ArchiveExtractor`'s origin does).
    let archiveName = "bundle"

    init() {}

    /// The files of an archive unpacked (or a recording kept) at `archiveRoot`.
    init(archiveRoot: String) {
        self.archiveRoot = archiveRoot
    }

    /// The files of an upload, by the part each came in.
    init(_ upload: UploadedParts) {
        for (name, file) in upload.files { parts[file.path] = name }
    }

    /// `error` about what the client sent.
    func error(_ error: CloudError) -> CloudError {
        CloudError(error.kind, subject: error.subject.map(subject), error.reason.renaming(subject))
    }

    /// `warning` about what the client sent.
    func named(_ warning: CloudWarning) -> CloudWarning {
        CloudWarning(warning.subject.map(subject), warning.reason.renaming(subject))
    }

    func subject(_ subject: CloudError.Subject) -> CloudError.Subject {
        switch subject {
        case let .file(path):
            if let name = parts[path] { return .part(name) }
            // A place inside an uploaded file ("PATH: depth XMP", "PATH color"): the same place in its part.
            if let (file, name) = parts.first(where: { path.hasPrefix($0.key) && [":", " "].contains(path.dropFirst($0.key.count).first) })
            {
                return .part(name, within: String(path.dropFirst(file.count)))
            }
            return archiveRoot.flatMap { subject.moved(from: $0, to: archiveName) } ?? subject
        case let .source(spec):
            return .source(source(spec))
        case .part, .option:
            return subject
        }
    }

    /// A source's spec (as its source names itself) with the server's paths named as the client
    /// knows them: "rgbd:color,depth", "photo:photo", "redwood:bundle". Each uploaded file's whole
    /// path is replaced, longest first, so that a comma or a space in the server's folder splits nothing.
    func source(_ spec: String) -> String {
        if let root = archiveRoot, let moved = CloudError.Subject.source(spec).moved(from: root, to: archiveName) { return moved.text }
        return parts.keys.sorted { $0.count > $1.count }.reduce(spec) { text, path in
            text.replacingOccurrences(of: path, with: parts[path]!)
        }
    }
}
