import CloudArchives
import CloudCore
import Foundation
import Hummingbird
import SafeIO

#if canImport(Glibc)
import Glibc
#endif

/// Receives a multipart/form-data body part by part: file parts are written straight to disk as
/// they arrive (never whole in memory), text fields are kept up to 64 KiB each. The body is counted
/// as it streams, so that one over `limit` is refused with 413 as soon as it passes the limit, and
/// whatever was written is removed.
struct MultipartUpload {
    /// The parts that are files; any other part is a text field.
    let fileParts: Set<String>
    /// The text fields this route takes; others are refused by name.
    let fieldNames: Set<String>
    let limit: Int
    static let fieldLimit = 64 << 10
    /// Text fields in one body: the steps' limit and every other field the routes take, with room.
    static let maxFields = 48

    /// Reads `request`'s body into `folder` (which must exist and be empty).
    func receive(_ request: Request, into folder: String) async throws -> UploadedParts {
        guard let contentType = request.headers[.contentType] else {
            throw Problem.unsupportedMediaType("send the parts as multipart/form-data (no Content-Type was given)")
        }
        guard let boundary = Self.boundary(contentType) else {
            throw Problem.unsupportedMediaType("send the parts as multipart/form-data with a boundary, not \(contentType)")
        }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw Problem.tooLarge(limit: limit)
        }
        let state = PartWriter(folder: folder, fileParts: fileParts, fieldNames: fieldNames)
        defer { state.closeFile() }
        var parser = MultipartParser(boundary: boundary)
        var received = 0
        for try await buffer in request.body {
            received += buffer.readableBytes
            if received > limit { throw Problem.tooLarge(limit: limit) }
            do {
                try parser.feed(buffer.readableBytesView) { event in
                    switch event {
                    case .headers(let lines): state.begin(lines)
                    case .content(let bytes): state.body(bytes)
                    case .end: state.complete()
                    }
                    if let problem = state.problem { throw problem }
                }
            } catch MultipartParser.Failure.malformed(let what) {
                throw Problem.badRequest("the multipart body is malformed: \(what)")
            }
        }
        guard parser.isComplete else {
            throw Problem.badRequest("the multipart body ends before its closing boundary (truncated upload?)")
        }
        guard state.partsSeen > 0 else { throw Problem.badRequest("the multipart body has no parts") }
        return state.parts
    }

    /// `multipart/form-data; boundary=XYZ` (quoted or not) -> XYZ.
    static func boundary(_ contentType: String) -> String? {
        let pieces = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard pieces.first?.lowercased() == "multipart/form-data" else { return nil }
        for piece in pieces.dropFirst() where piece.lowercased().hasPrefix("boundary=") {
            var value = piece.dropFirst("boundary=".count)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
            // RFC 2046: 1 to 70 characters.
            return (1...70).contains(value.count) ? String(value) : nil
        }
        return nil
    }
}

/// The parser's events: one part at a time, into a file or a field.
private final class PartWriter {
    let folder: String
    let fileParts: Set<String>
    let fieldNames: Set<String>
    var parts: UploadedParts
    var problem: Problem?
    var partsSeen = 0
    private var disposition: String?
    private var name: String?
    private var fd: Int32 = -1
    private var field: [UInt8] = []
    private var bytes = 0
    private var pending: [UInt8] = []
    static let flushBytes = 1 << 18

    init(folder: String, fileParts: Set<String>, fieldNames: Set<String>) {
        self.folder = folder
        self.fileParts = fileParts
        self.fieldNames = fieldNames
        parts = UploadedParts(folder: folder)
    }

    func begin(_ lines: [(name: String, value: String)]) {
        disposition = lines.last { $0.name.lowercased() == "content-disposition" }?.value
        name = nil
        _ = start()
    }

    func body(_ content: ArraySlice<UInt8>) {
        guard problem == nil, let name else { return }
        bytes += content.count
        if fd >= 0 {
            // Gathered, so that the disk sees large writes whatever size the pieces arrive in.
            pending += content
            if pending.count >= Self.flushBytes { flush() }
        } else if field.count + content.count > MultipartUpload.fieldLimit {
            problem = .badRequest("field \(name): longer than \(MultipartUpload.fieldLimit >> 10) KiB", field: name)
        } else {
            field += content
        }
    }

    func complete() {
        guard problem == nil else { return }
        if let name {
            if fd >= 0 {
                flush()
                closeFile()
                parts.files[name] = .init(
                    name: name, path: "\(folder)/\(name)", filename: Self.parameter("filename", of: disposition ?? ""), bytes: bytes)
            } else {
                guard let text = String(validating: field, as: UTF8.self) else {
                    problem = .badRequest("field \(name): not UTF-8 text", field: name)
                    return
                }
                // Refused as the body streams in: a form of thousands of filter steps is turned
                // away within its first kilobytes, not parsed whole and then refused.
                guard parts.fields.count < MultipartUpload.maxFields else {
                    problem = Problem.unprocessable(
                        "more than \(MultipartUpload.maxFields) fields; a request may ask for at most \(WorkLimits.maxSteps) filter steps",
                        field: name)
                    return
                }
                parts.fields.append((name, text.trimmingCharacters(in: .whitespacesAndNewlines)))
            }
        }
        partsSeen += 1
        disposition = nil
        self.name = nil
        field = []
        bytes = 0
    }

    /// Opens the current part once its headers are in: false (with `problem` set) if refused.
    private func start() -> Bool {
        guard let disposition, let name = Self.parameter("name", of: disposition), !name.isEmpty else {
            problem = .badRequest("a part has no Content-Disposition: form-data; name=\"...\"")
            return false
        }
        if fileParts.contains(name) {
            guard parts.files[name] == nil else {
                problem = .badRequest("part \(name) is given twice", field: name)
                return false
            }
            // The part's name is one of ours, so this path is inside the request's folder.
            fd = open("\(folder)/\(name)", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd < 0 {
                problem = Problem(.internalServerError, "cannot store the upload: \(String(cString: strerror(errno)))")
                return false
            }
        } else if !fieldNames.contains(name) {
            let known = (fileParts.sorted().map { "\($0) (file)" } + fieldNames.sorted()).joined(separator: ", ")
            problem = .badRequest("unknown part \(MessageTextShort.of(name)); this route takes \(known)", field: name)
            return false
        }
        self.name = name
        return true
    }

    private func flush() {
        guard fd >= 0, !pending.isEmpty else { return }
        if let failed = pending.withUnsafeBytes({ writeAll(fd, $0) }), problem == nil {
            problem = Problem(.internalServerError, "cannot store the upload: \(String(cString: strerror(failed)))")
        }
        pending.removeAll(keepingCapacity: true)
    }

    func closeFile() {
        if fd >= 0 { close(fd) }
        fd = -1
        pending.removeAll()
    }

    /// A parameter of a Content-Disposition value: `form-data; name="depth"; filename="d.png"`.
    static func parameter(_ key: String, of value: String) -> String? {
        for piece in value.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == key else { continue }
            var v = Substring(pair[1])
            if v.hasPrefix("\""), v.hasSuffix("\""), v.count >= 2 { v = v.dropFirst().dropLast() }
            return String(v)
        }
        return nil
    }
}

/// A client's name in a message, bounded and escaped.
enum MessageTextShort {
    static func of(_ text: String) -> String {
        "'" + MessageText.shortened(MessageText.escaped(text), to: 60) + "'"
    }
}
