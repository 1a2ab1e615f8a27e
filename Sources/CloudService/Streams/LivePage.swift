/// GET /live/{id}: a stream's page, as the page's own file (Resources/live.html).
enum LivePage {
    static let html = String(decoding: PackageResources.live_html, as: UTF8.self)
}
