import CloudCore
import Foundation

/// An uploaded frame's inputs as a lazily stored capture keeps them, in its `inputs/` folder:
/// each file part under its part's name, byte for byte as sent, and `order.json` with the part
/// names and the fields that shape the cloud, in request order. They are the truth the capture's
/// cloud is made from on first read (`CaptureRunner.remake`), as the upload made it: the same
/// parts give the same order (`CaptureRoutes.order`), and the pipeline is deterministic.
enum CaptureInputs {
    static let folder = CaptureStore.inputsFolderName
    static let orderFile = "order.json"

    private struct Kept: Codable {
        var files: [String]
        /// Name and value pairs; a capture's inputs keep no labels (PATCH changes those).
        var fields: [[String]]
        /// Each file part's own name as the client sent it; kept by a job's folder, whose
        /// capture records them once made (`UploadedParts.clientFileNames`).
        var filenames: [String: String]?
    }

    /// Moves the upload's files into `capture`/inputs/ (one rename each: the upload folder is on
    /// the same file system) and writes the order file beside them.
    static func keep(_ parts: UploadedParts, in capture: URL) throws {
        let inputs = capture.appendingPathComponent(folder, isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: false)
        } catch {
            throw CloudError.io("\(inputs.path): cannot create the inputs folder: \(error.localizedDescription)")
        }
        let files = parts.files.sorted { $0.key < $1.key }
        for (name, file) in files {
            try DurableFiles.move(URL(fileURLWithPath: file.path), to: inputs.appendingPathComponent(name))
        }
        let fields = parts.fields.filter { !CaptureLabelFields.names.contains($0.name) }
        try writeOrder(files: files.map(\.key), fields: fields, filenames: nil, in: inputs)
    }

    /// The parts kept in `capture`/inputs/, as the upload received them (paths inside that folder).
    static func parts(in capture: URL) throws -> UploadedParts {
        try parts(at: capture.appendingPathComponent(folder, isDirectory: true))
    }

    /// Writes the order file into `inputs`, the folder that holds the files by their part's name.
    static func writeOrder(files: [String], fields: [(name: String, value: String)], filenames: [String: String]?, in inputs: URL) throws {
        let data = try JSONEncoder().encode(Kept(files: files, fields: fields.map { [$0.name, $0.value] }, filenames: filenames))
        do {
            try data.write(to: inputs.appendingPathComponent(orderFile))
        } catch {
            throw CloudError.io("\(inputs.path): cannot write \(orderFile): \(error.localizedDescription)")
        }
    }

    /// The parts kept in `inputs` with their order file (paths inside that folder).
    static func parts(at inputs: URL) throws -> UploadedParts {
        let orderPath = inputs.appendingPathComponent(orderFile)
        let kept: Kept
        do {
            kept = try JSONDecoder().decode(Kept.self, from: Data(contentsOf: orderPath))
        } catch {
            throw CloudError.io("\(orderPath.path): unreadable: \(error.localizedDescription)")
        }
        var parts = UploadedParts(folder: inputs.path)
        for name in kept.files {
            // Part names came from the upload's fixed set; a name that could leave the folder is damage.
            guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
                throw CloudError.io("\(orderPath.path): names a file \(name) outside the inputs")
            }
            let path = inputs.appendingPathComponent(name).path
            parts.files[name] = UploadedParts.File(name: name, path: path, filename: kept.filenames?[name], bytes: FileSize.of(path))
        }
        for pair in kept.fields {
            guard pair.count == 2 else { throw CloudError.io("\(orderPath.path): a field is not a name and a value") }
            parts.fields.append((pair[0], pair[1]))
        }
        return parts
    }
}
