import Foundation
import Hummingbird

/// GET /v1/captures' query: `limit`, `after`, `sort`, `q` and `tag` (repeatable: all of them),
/// checked, and the `next` link that carries them on to the following page.
struct CaptureListQuery {
    var query: CaptureQuery

    init(_ request: Request) throws {
        try ExportQuery(request, allowed: ["limit", "after", "sort", "q", "tag"]).finish()
        let parameters = request.uri.queryParameters
        let page = try PageParameters<CaptureKind>(request, noun: "capture")
        var sort = CaptureQuery.Sort.newest
        if let text = parameters["sort"] {
            guard let parsed = CaptureQuery.Sort(rawValue: String(text)) else {
                throw Problem.badRequest(
                    "sort \(MessageTextShort.of(String(text))): needs one of \(CaptureQuery.Sort.allCases.map(\.rawValue).joined(separator: ", "))",
                    field: "sort")
            }
            sort = parsed
        }
        let text = parameters["q"].map { String($0).trimmingCharacters(in: .whitespaces) }
        if let text, text.count > 200 {
            throw Problem.badRequest("q: \(text.count) characters; at most 200", field: "q")
        }
        // No name, tag or note holds one, and a NUL would end the pattern early in SQLite's C
        // string, leaving "%": every capture.
        if let text, text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw Problem.badRequest("q: holds a control character; search for text", field: "q")
        }
        let tags = request.uri.queryParameters.filter { $0.key == "tag" }.map { String($0.value) }
        guard tags.count <= CaptureLabelFields.maxTags else {
            throw Problem.badRequest("tag: \(tags.count) of them; at most \(CaptureLabelFields.maxTags)", field: "tag")
        }
        query = CaptureQuery(limit: page.limit, after: page.after, sort: sort, text: text?.isEmpty == true ? nil : text, tags: tags)
    }

    /// The URL of the page after `last`, with the same order, search and tags.
    func link(after last: CaptureID) -> String {
        var items = [URLQueryItem(name: "limit", value: String(query.limit))]
        if query.sort != .newest { items.append(URLQueryItem(name: "sort", value: query.sort.rawValue)) }
        if let text = query.text { items.append(URLQueryItem(name: "q", value: text)) }
        items += query.tags.map { URLQueryItem(name: "tag", value: $0) }
        items.append(URLQueryItem(name: "after", value: last.rawValue))
        var components = URLComponents()
        components.path = "/v1/captures"
        components.percentEncodedQuery = items.map { Self.encoded($0.name) + "=" + Self.encoded($0.value ?? "") }.joined(separator: "&")
        return components.string ?? "/v1/captures"
    }

    /// What a query's names and values may hold as they are: URLComponents' `queryItems` leaves
    /// '+' alone, which a form decoder reads as a space, and the separators must be escaped too.
    private static let queryValueCharacters = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "+&=;"))

    private static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: queryValueCharacters) ?? ""
    }
}
