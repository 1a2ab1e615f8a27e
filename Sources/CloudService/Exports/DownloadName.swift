import Foundation
import Hummingbird

/// The file name a download is saved under: the capture's name (or its id) and the variant, so
/// that `kitchen.ply`, `kitchen-voxel0.01.pcd` and `kitchen-preview.png` land side by side
/// rather than every file as `cloud.ply`.
enum DownloadName {
    /// The capture's name made fit for a file name on any system (no path separators, no
    /// characters Windows refuses, no leading dot), or its id when it has none.
    static func base(_ record: CaptureRecord) -> String {
        let refused = CharacterSet(charactersIn: "/\\:*?\"<>|").union(.controlCharacters)
        let cleaned = (record.labels.name ?? "").unicodeScalars.map { refused.contains($0) ? "-" : String($0) }.joined()
        let trimmed = String(cleaned.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "."))).prefix(100))
        return trimmed.isEmpty ? record.id.rawValue : trimmed
    }

    /// A cloud download: the encoding unless binary, then each filter step, `kitchen-ascii-voxel0.01.pcd`.
    static func cloud(_ base: String, container: String, query: [(name: String, value: String)]) -> String {
        var pieces = [base]
        let encodingNames: Set<String> = ["encoding", "format"]
        if let encoding = query.last(where: { encodingNames.contains($0.name) })?.value, encoding != "binary" { pieces.append(encoding) }
        pieces += query.filter { !encodingNames.contains($0.name) }.map { $0.name + $0.value }
        return pieces.joined(separator: "-") + "." + container
    }

    /// A preview: `kitchen-preview.png` for the default view, else with its angles and size.
    static func preview(_ base: String, query: [(name: String, value: String)]) -> String {
        let view = ["azimuth": "az", "elevation": "el", "width": "w", "height": "h"]
        let parts = query.compactMap { item in view[item.name].map { $0 + item.value } }
        return ([base, "preview"] + parts).joined(separator: "-") + ".png"
    }

    /// RFC 6266's header for `filename`: an ASCII `filename` (other characters as `_`) for old
    /// clients, and the exact name as RFC 5987's `filename*=UTF-8''...` for the rest.
    static func contentDisposition(_ filename: String) -> String {
        let ascii = String(
            filename.unicodeScalars.map { scalar -> Character in
                scalar.isASCII && scalar.value >= 0x20 && scalar != "\"" && scalar != "\\" && scalar.value != 0x7f ? Character(scalar) : "_"
            })
        // RFC 5987 attr-char: what may stand unescaped in an ext-value.
        let attrChars = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$&+-.^_`|~")
        let encoded = filename.addingPercentEncoding(withAllowedCharacters: attrChars) ?? ascii
        return "attachment; filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)"
    }

    /// `response` (a capture's file) with `Content-Disposition: attachment` and the name `file`
    /// makes of the capture's base name; answers other than the file (304, problems) pass as they are.
    static func attachment(_ response: Response, capture text: String?, in index: any CaptureIndex, file: (String) -> String) async throws
        -> Response
    {
        guard response.status == .ok || response.status == .partialContent, let text, let id = CaptureID(validating: text),
            let record = try await index.capture(id)
        else { return response }
        var response = response
        response.headers[.contentDisposition] = DownloadName.contentDisposition(file(DownloadName.base(record)))
        return response
    }
}

extension Request {
    /// The query's parameters in order, as the routes read them.
    var orderedQuery: [(name: String, value: String)] {
        uri.queryParameters.map { (String($0.key), String($0.value)) }
    }
}
