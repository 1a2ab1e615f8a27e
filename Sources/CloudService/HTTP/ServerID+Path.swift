extension ServerID {
    /// An id from a request's path; anything else (`..`, `%2e%2e`, another shape) is simply not
    /// found, before any file is looked at. `noun` names the kind in the 404: "no job '..'".
    init(path text: String?, noun: String) throws {
        guard let text, let id = Self(validating: text) else {
            throw Problem.notFound("no \(noun) \(MessageTextShort.of(text ?? ""))")
        }
        self = id
    }
}
