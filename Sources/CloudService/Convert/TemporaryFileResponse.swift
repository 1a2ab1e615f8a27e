import CloudCore
import Foundation
import Hummingbird

/// A file sent once and then removed with its folder, however the sending ends.
enum TemporaryFileResponse {
    static func stream(_ path: String, removing folder: URL, contentType: String, filename: String) throws -> Response {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            try? FileManager.default.removeItem(at: folder)
            throw CloudError.io("\(path): the converted file is gone")
        }
        let size = FileSize.of(path)
        let body = ResponseBody(contentLength: size) { writer in
            defer {
                try? handle.close()
                try? FileManager.default.removeItem(at: folder)
            }
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                try await writer.write(ByteBuffer(bytes: chunk))
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: contentType, .contentLength: String(size),
                .contentDisposition: "attachment; filename=\"\(filename)\""
            ], body: body)
    }
}
