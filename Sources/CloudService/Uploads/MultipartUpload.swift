#if canImport(Glibc)
import Glibc
#endif
import CloudCore
import CloudIO
import Foundation
import Hummingbird
import MultipartKit

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
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in state.header(name, value) }
        parser.onBody = { buffer in state.body(&buffer) }
        parser.onPartComplete = { state.complete() }
        var received = 0
        for try await buffer in request.body {
            received += buffer.readableBytes
            if received > limit { throw Problem.tooLarge(limit: limit) }
            do {
                try parser.execute(buffer)
            } catch {
                throw Problem.badRequest("the multipart body is malformed (boundary \(boundary))")
            }
            if let problem = state.problem { throw problem }
        }
        if let problem = state.problem { throw problem }
        guard state.partOpen == false, state.partsSeen > 0 else {
            throw Problem.badRequest("the multipart body ends before its closing boundary (truncated upload?)")
        }
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

/// The parser's callbacks: one part at a time, into a file or a field.
private final class PartWriter {
    let folder: String
    let fileParts: Set<String>
    let fieldNames: Set<String>
    var parts: UploadedParts
    var problem: Problem?
    var partOpen = false
    var partsSeen = 0
    private var disposition: String?
    private var name: String?
    private var fd: Int32 = -1
    private var field: [UInt8] = []
    private var bytes = 0

    init(folder: String, fileParts: Set<String>, fieldNames: Set<String>) {
        self.folder = folder
        self.fileParts = fileParts
        self.fieldNames = fieldNames
        parts = UploadedParts(folder: folder)
    }

    func header(_ name: String, _ value: String) {
        partOpen = true
        if name.lowercased() == "content-disposition" { disposition = value }
    }

    func body(_ buffer: inout ByteBuffer) {
        guard problem == nil else { return }
        if name == nil && !start() { return }
        bytes += buffer.readableBytes
        if fd >= 0 {
            let failed = buffer.withUnsafeReadableBytes { writeAll(fd, $0) }
            if let failed {
                problem = Problem(.internalServerError, "cannot store the upload: \(String(cString: strerror(failed)))")
            }
        } else if field.count + buffer.readableBytes > MultipartUpload.fieldLimit {
            problem = .badRequest("field \(name ?? ""): longer than \(MultipartUpload.fieldLimit >> 10) KiB", field: name)
        } else {
            field += buffer.readableBytesView
        }
    }

    func complete() {
        guard problem == nil else { return }
        if name == nil && !start() { return }
        if let name {
            if fd >= 0 {
                closeFile()
                parts.files[name] = .init(name: name, path: "\(folder)/\(name)", filename: Self.parameter("filename", of: disposition ?? ""), bytes: bytes)
            } else {
                guard let text = String(validating: field, as: UTF8.self) else {
                    problem = .badRequest("field \(name): not UTF-8 text", field: name)
                    return
                }
                parts.fields.append((name, text.trimmingCharacters(in: .whitespacesAndNewlines)))
            }
        }
        partsSeen += 1
        partOpen = false
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

    func closeFile() {
        if fd >= 0 { close(fd) }
        fd = -1
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
