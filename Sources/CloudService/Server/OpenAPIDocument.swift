/// GET /openapi.json: the API as OpenAPI 3.1 (Docs/http.md is its prose). Tests hold it to the
/// routes the server registers and to what they answer.
enum OpenAPIDocument {
    static let json = """
    {"openapi": "3.1.0", "info": {"title": "cloudgen", "version": "1"}, "paths": {}}
    """
}
