import Foundation
import Hummingbird

/// GET /v1/jobs/{id} and GET /v1/jobs/{id}/events (server-sent events: one `state` event per
/// change, the current state first, the stream closing after the terminal one).
struct JobRoutes {
    let service: ServiceState

    func register(on router: Router<BasicRequestContext>) {
        service.routes.add(.get, "/v1/jobs/{id}", to: router) { _, context in
            let id = try service.jobID(context.parameters.get("id"))
            guard let job = try await service.store.index.job(id) else { throw Problem.notFound("no job \(id)") }
            return Response.json(try job.json(), status: .ok)
        }
        service.routes.add(.get, "/v1/jobs/{id}/events", to: router) { _, context in
            let id = try service.jobID(context.parameters.get("id"))
            guard let events = try await service.jobs.events(id) else { throw Problem.notFound("no job \(id)") }
            let body = ResponseBody { writer in
                for await job in events {
                    var text = "event: state\ndata: "
                    text += String(decoding: try job.json(), as: UTF8.self)
                    text += "\n\n"
                    try await writer.write(ByteBuffer(string: text))
                }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: body)
        }
    }
}
