/// GET /live/{id}: a stream's page, as the page's own file (Resources/live.html).
enum LivePage {
    static let html = PointViewScript.inserted(into: PackageResources.live_html)
}
