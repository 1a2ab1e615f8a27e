import Foundation

/// A multipart/form-data request as received: files streamed to disk under their part's name,
/// small text fields in memory, both in the order they came (filters run in that order).
struct UploadedParts: Sendable {
    struct File: Sendable {
        /// The part's name, which is also the file's name in the request's folder.
        var name: String
        var path: String
        var filename: String?
        var bytes: Int
    }

    var folder: String
    var files: [String: File] = [:]
    /// Name and value, in request order; a name may repeat (two `voxel` steps).
    var fields: [(name: String, value: String)] = []

    func field(_ name: String) -> String? {
        fields.last { $0.name == name }?.value
    }

    /// Each file part's own name as the client sent it (`filename=`), reduced to its last path
    /// component, printable and at most 255 characters: what the capture's record keeps.
    var clientFileNames: [String: String] {
        var names: [String: String] = [:]
        for (part, file) in files {
            guard let sent = file.filename else { continue }
            let base = sent.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
            var printable = String.UnicodeScalarView()
            printable.append(contentsOf: base.unicodeScalars.filter { $0.properties.generalCategory != .control }.prefix(255))
            if !printable.isEmpty { names[part] = String(printable) }
        }
        return names
    }
}
