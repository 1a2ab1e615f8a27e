import Foundation
import Hummingbird

/// GET /v1/jobs?limit=&after=&state=: the jobs newest first, a page at a time, optionally only
/// those in the states named (`state` may repeat), so that a job whose Location was lost can be
/// found again.
struct JobListRoute {
    let index: any CaptureIndex

    var collection: RouteCollection<BasicRequestContext> {
        let routes = RouteCollection(context: BasicRequestContext.self)
        routes.get("/v1/jobs") { request, _ in
            try ExportQuery(request, allowed: ["limit", "after", "state"]).finish()
            let parameters = request.uri.queryParameters
            let page = try PageParameters<JobKind>(request, noun: "job")
            let limit = page.limit
            var states: [JobRecord.State] = []
            for (key, value) in parameters where key == "state" {
                guard let state = JobRecord.State(rawValue: String(value)) else {
                    throw Problem.badRequest(
                        "state \(MessageTextShort.of(String(value))): needs \(JobRecord.State.allCases.map(\.rawValue).joined(separator: ", "))",
                        field: "state")
                }
                if !states.contains(state) { states.append(state) }
            }
            let jobs = try await index.listJobs(limit: limit, after: page.after, states: Set(states))
            let stateQuery = states.map { "&state=\($0.rawValue)" }.joined()
            let next = jobs.count == limit ? jobs.last.map { "/v1/jobs?limit=\(limit)\(stateQuery)&after=\($0.id)" } : nil
            return Response.json(try JSONEncoder.documents.encode(JobPage(jobs: jobs.map(JobDocument.init), next: next)), status: .ok)
        }
        return routes
    }
}

/// A page of the job listing.
private struct JobPage: Encodable {
    var jobs: [JobDocument]
    /// The next page's URL; null (not left out) on the last page.
    var next: String?

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(jobs, forKey: .jobs)
        try container.encode(next, forKey: .next)
    }

    private enum CodingKeys: String, CodingKey {
        case jobs, next
    }
}
