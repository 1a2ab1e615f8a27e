import Foundation
import Hummingbird
import ServiceLifecycle

/// GET /v1/jobs/{id} and GET /v1/jobs/{id}/events (server-sent events: one `state` event per
/// change, the current state first, the stream closing after the terminal one, or when the
/// server stops).
struct JobRoutes {
    /// Where the jobs' states are kept; the board tells their changes.
    let index: any CaptureIndex
    let board: JobBoard

    var collection: RouteCollection<BasicRequestContext> {
        let routes = RouteCollection(context: BasicRequestContext.self)
        routes.get("/v1/jobs/{id}") { _, context in
            let id = try JobID(path: context.parameters.get("id"), noun: "job")
            guard let job = try await index.job(id) else { throw Problem.notFound("no job \(id)") }
            return Response.json(try job.json(), status: .ok)
        }
        routes.get("/v1/jobs/{id}/events") { _, context in
            let id = try JobID(path: context.parameters.get("id"), noun: "job")
            guard let events = try await board.events(id) else { throw Problem.notFound("no job \(id)") }
            let body = ResponseBody { writer in
                // A stop ends the stream rather than wait for the job, which may run for hours (on
                // another replica, or here until the stop cancels it, after the requests): the
                // client reconnects, to another replica behind a proxy, and reads the state there.
                try await withGracefulShutdownHandler {
                    for await job in events {
                        var text = "event: state\ndata: "
                        text += String(decoding: try job.json(), as: UTF8.self)
                        text += "\n\n"
                        try await writer.write(ByteBuffer(string: text))
                    }
                } onGracefulShutdown: {
                    events.end()
                }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: body)
        }
        return routes
    }
}
