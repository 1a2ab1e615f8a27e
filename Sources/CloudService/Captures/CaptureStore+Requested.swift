import Foundation

extension CaptureStore {
    /// The stored capture a request's path names, and its folder; 404 for an id of another
    /// shape, or one with no row or no folder.
    func requested(_ text: String?) async throws -> (CaptureID, URL) {
        let (record, folder) = try await requestedRecord(text)
        return (record.id, folder)
    }

    /// The same, with the capture's row.
    func requestedRecord(_ text: String?) async throws -> (CaptureRecord, URL) {
        let id = try CaptureID(path: text, noun: "capture")
        guard let record = try await index.capture(id), let folder = folder(id) else { throw Problem.notFound("no capture \(id)") }
        return (record, folder)
    }
}
