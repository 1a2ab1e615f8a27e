import CloudCore
import Foundation

extension CaptureStore {
    /// A new empty folder under uploads/ for one request's parts; the route removes it when the
    /// request is done (a job, when the job is), and start-up empties uploads/ after a crash.
    func makeUploadFolder() throws -> URL {
        let folder = uploads.appendingPathComponent(UUID().uuidString.lowercased(), isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        } catch {
            throw CloudError.io("\(folder.path): cannot create the upload folder: \(error.localizedDescription)")
        }
        return folder
    }
}
