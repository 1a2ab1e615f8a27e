import CloudCore
import Foundation

/// An archive job's folder, jobs/ID in the data folder: the upload (the archive and any
/// intrinsics file, under their part names) and its order file (`CaptureInputs`: the fields, in
/// request order, and the client's file names). It is written, flushed, before the job's row is
/// inserted, so that whichever replica runs the job (the one it was uploaded to, or another that
/// took it over when that one died) runs it from the same inputs. The replica that saves how the
/// job ended removes it; start-up removes those of jobs that ended (`CaptureStore.reconcile()`).
extension CaptureStore {
    public func jobFolder(_ id: JobID) -> URL {
        jobs.appendingPathComponent(id.rawValue, isDirectory: true)
    }

    /// Moves the request's upload folder to jobs/ID (one rename: same file system) and writes the
    /// order beside its files.
    func adoptJobFolder(_ upload: URL, parts: UploadedParts, for id: JobID) throws {
        let folder = jobFolder(id)
        try DurableFiles.move(upload, to: folder)
        do {
            try CaptureInputs.writeOrder(
                files: parts.files.keys.sorted(), fields: parts.fields, filenames: parts.clientFileNames, in: folder)
            try DurableFiles.syncTree(folder)
            try DurableFiles.sync(jobs)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    /// The parts of the job's upload, read from its folder.
    func jobParts(_ id: JobID) throws -> UploadedParts {
        try CaptureInputs.parts(at: jobFolder(id))
    }
}
