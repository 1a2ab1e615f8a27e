import Foundation

extension CaptureStore {
    /// The stored capture a request's path names, and its folder; 404 for an id of another
    /// shape, or one with no row or no folder.
    func requested(_ text: String?) async throws -> (CaptureID, URL) {
        let id = try CaptureID(path: text, noun: "capture")
        guard try await index.capture(id) != nil, let folder = folder(id) else { throw Problem.notFound("no capture \(id)") }
        return (id, folder)
    }
}
