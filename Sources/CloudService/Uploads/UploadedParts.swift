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

    /// The request folder's path in a message becomes the part's name: a client sees
    /// "depth: not a PNG ...", never the server's disk.
    func clientFacing(_ message: String) -> String {
        message.replacingOccurrences(of: folder + "/", with: "")
    }

    /// The part a message is about, when it starts with one's name.
    func part(in message: String) -> String? {
        files.keys.first { message.hasPrefix($0 + ":") }
    }
}
