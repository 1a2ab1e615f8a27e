/// GET /openapi.json: the API as OpenAPI 3.1 (Docs/http.md is its prose). Tests hold it to the
/// routes the server registers and to what they answer (OpenAPIDocumentTests), to the option
/// catalogue and the source registry (OptionCatalogueTests, OpenAPISourceKindTests), and
/// Tools/schemathesis/run sends it generated requests.
///
/// It lives in Resources/openapi.json, the JSON it is served as, so a reader sees exactly what
/// clients get; what repeats (errors, the capture id, the filter parameters) lives once under
/// `components`. Every error is `application/problem+json`; a 405 (a known path asked with another
/// method, with `Allow`) can belong to no operation, so it is only in `components.responses`.
enum OpenAPIDocument {
    static let json = String(decoding: PackageResources.openapi_json, as: UTF8.self)
}
