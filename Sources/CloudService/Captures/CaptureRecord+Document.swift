import Foundation

extension CaptureRecord {
    /// The capture's document as the routes give it: the report made when it was captured, with
    /// what may change since or was known only to the route (name, tags, note, the uploaded
    /// files' names) laid over it.
    func document() throws -> Data {
        guard var object = try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any] else {
            throw CocoaError(.coderReadCorrupt)
        }
        object["name"] = labels.name ?? NSNull()
        object["tags"] = labels.tags
        object["note"] = labels.note ?? NSNull()
        object["files"] = uploadedFiles
        if var links = object["links"] as? [String: Any] {
            links["zip"] = "/v1/captures/\(id)/capture.zip"
            object["links"] = links
        }
        // The pipeline words its warnings and filter steps as the CLI's flags; over HTTP they are
        // fields (captures stored before this rewording are read the same way).
        if let warnings = object["warnings"] as? [String] { object["warnings"] = warnings.map(CaptureOrder.httpWording) }
        if let filters = object["filters"] as? [[String: Any]] {
            object["filters"] = filters.map { step in
                var step = step
                if let argument = step["argument"] as? String { step["argument"] = CaptureOrder.httpWording(argument) }
                return step
            }
        }
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    }

    /// Changes with the labels: a client's cached document is stale after a PATCH.
    var documentETag: String { "\"\(id).\(revision)\"" }
}
