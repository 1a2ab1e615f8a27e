import Foundation

extension CaptureRecord {
    /// The capture's document as the routes give it: the report made when it was captured, with
    /// what may change since or was known only to the route (name, tags, note, the uploaded
    /// files' names) laid over it.
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
        // The pipeline words its warnings and filter steps as the CLI's flags; over HTTP they are
        // fields (captures stored before this rewording are read the same way).
        if case .array(let warnings) = object["warnings"] {
            object["warnings"] = .array(
                warnings.map { warning in
                    guard case .string(let text) = warning else { return warning }
                    return .string(CaptureOrder.httpWording(text))
                })
        }
        if case .array(let filters) = object["filters"] {
            object["filters"] = .array(
                filters.map { step in
                    var step = step
                    if case .string(let argument) = step["argument"] { step["argument"] = .string(CaptureOrder.httpWording(argument)) }
                    return step
                })
        }
        return object
    }

    /// Changes with the labels: a client's cached document is stale after a PATCH.
    var documentETag: String { "\"\(id).\(revision)\"" }
}
