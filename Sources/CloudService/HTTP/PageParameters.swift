import Hummingbird

/// A listing's page, as every paged route reads it: `limit` (1...100, default 20) and `after`,
/// the last id of the previous page, of the kind the route lists (the id says which in its
/// message: "not a capture id", "not a job id").
struct PageParameters<Kind: ServerIDKind> {
    let limit: Int
    let after: ServerID<Kind>?

    init(_ request: Request, noun: String) throws {
        let parameters = request.uri.queryParameters
        var limit = 20
        if let text = parameters["limit"] {
            guard let n = Int(text), (1...100).contains(n) else {
                throw Problem.badRequest("limit \(MessageTextShort.of(String(text))): needs 1...100", field: "limit")
            }
            limit = n
        }
        self.limit = limit
        after = try parameters["after"].map { text in
            guard let id = ServerID<Kind>(validating: String(text)) else {
                throw Problem.badRequest(
                    "after \(MessageTextShort.of(String(text))): not a \(noun) id (take it from the previous page's next link)",
                    field: "after")
            }
            return id
        }
    }
}
