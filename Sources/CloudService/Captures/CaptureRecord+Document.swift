import Foundation

extension CaptureRecord {
    /// The capture's document as the routes give it: the report made when it was captured, worded
    /// for HTTP then (`CaptureDocument`), with what may change since or was known only to the route
    /// (name, tags, note, the uploaded files' names) laid over it.
    func document() throws -> Data {
        try documentValue().encoded()
    }

    func documentValue() throws -> JSONValue {
        var object = try JSONDecoder().decode(JSONValue.self, from: Data(report.utf8))
        guard case .object = object else { throw CocoaError(.coderReadCorrupt) }
        object["name"] = JSONValue(labels.name)
        object["tags"] = JSONValue(labels.tags)
        object["note"] = JSONValue(labels.note)
        object["files"] = JSONValue(uploadedFiles)
        object["links"]?["zip"] = .string("/v1/captures/\(id)/capture.zip")
        return object
    }

    /// Changes with the labels: a client's cached document is stale after a PATCH.
    var documentETag: String { "\"\(id).\(revision)\"" }
}
