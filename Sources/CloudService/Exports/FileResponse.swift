import CDispatch
import Foundation
import Hummingbird

#if canImport(Glibc)
import Glibc
#endif

/// A stored or derived file as an HTTP answer: Content-Length, a strong ETag (captures never
/// change, so id, variant and size name the bytes), 304 for If-None-Match, and a single byte
/// range (206, or 416 when it lies past the end). Streamed from disk in chunks.
enum FileResponse {
    static let fileIO = FileIO()

    static func serve(
        _ path: String, contentType: String, etag: String, request: Request,
        context: some RequestContext
    ) async throws -> Response {
        var info = stat()
        guard stat(path, &info) == 0 else { throw Problem.notFound("\(request.uri.path) is gone (the capture was deleted)") }
        let size = Int(info.st_size)
        let tag = "\"\(etag)-\(size)\""
        var headers: HTTPFields = [
            .contentType: contentType, .eTag: tag, .acceptRanges: "bytes",
            .cacheControl: "private, max-age=3600"
        ]
        if let match = request.headers[.ifNoneMatch], match == tag || match == "*" {
            return Response(status: .notModified, headers: headers)
        }
        if let rangeHeader = request.headers[.range], request.headers[.ifRange].map({ $0 == tag }) ?? true,
            let range = try byteRange(rangeHeader, size: size)
        {
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
            headers[.contentLength] = String(range.count)
            let body = try await fileIO.loadFile(path: path, range: range, context: context)
            return Response(status: .partialContent, headers: headers, body: body)
        }
        headers[.contentLength] = String(size)
        let body = size == 0 ? ResponseBody() : try await fileIO.loadFile(path: path, context: context)
        return Response(status: .ok, headers: headers, body: body)
    }

    /// `bytes=A-B`, `bytes=A-`, `bytes=-N`: one range, clamped to the file. nil (serve it whole)
    /// for several ranges or another unit, as RFC 9110 allows; 416 when nothing of it is in the file.
    static func byteRange(_ header: String, size: Int) throws -> ClosedRange<Int>? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst("bytes=".count).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard spec.count == 2 else { return nil }
        let unsatisfiable = Problem(
            .rangeNotSatisfiable, "the range \(header) lies outside the file's \(size) bytes",
            headers: [.contentRange: "bytes */\(size)"])
        if spec[0].isEmpty {
            guard let suffix = Int(spec[1]), suffix >= 0 else { return nil }
            guard suffix > 0, size > 0 else { throw unsatisfiable }
            return max(0, size - suffix)...(size - 1)
        }
        guard let start = Int(spec[0]), start >= 0 else { return nil }
        let end = spec[1].isEmpty ? size - 1 : Int(spec[1]).map { min($0, size - 1) }
        guard let end else { return nil }
        guard start < size, start <= end else { throw unsatisfiable }
        return start...end
    }
}
