import Hummingbird
import Logging
import NIOHTTP1

/// Turns whatever a handler throws into a problem+json answer, and a miss of the router into 404,
/// or 405 with `Allow` when the path exists for other methods. Nothing a request does reaches the
/// server as an error: a bug becomes a logged 500, never a closed connection.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            // The client went away (or stalled past the idle timeout) and its work was cancelled:
            // not the server's fault, and no one reads the answer. 499 (nginx's "client closed
            // request") in /metrics and the log. The parser's "stream ended" for a body cut off by
            // the closing connection can arrive before the connection is marked gone.
            let bodyCutOff = (error as? HTTPParserError) == .invalidEOFState
            if Task.isCancelled || error is CancellationError || ConnectionPresence.current?.isGone == true || bodyCutOff {
                context.logger.info(
                    "\(request.method.rawValue) \(request.uri.path): the connection closed before the answer; its work was cancelled")
                return try Problem.clientClosed.response(from: request, context: context)
            }
            var problem = Problem.from(error)
            // A 404 for a path no route has, or that routes have for other methods only, is the
            // router's miss; a handler's own 404 (no such capture) stands.
            if problem.status == .notFound {
                let methods = routes.methods(matching: request.uri.path)
                if methods.isEmpty {
                    problem = .notFound("no resource at \(request.uri.path)")
                } else if !methods.contains(request.method) {
                    let allow = Array(Set(methods.map(\.rawValue))).sorted().joined(separator: ", ")
                    problem = Problem(
                        .methodNotAllowed, "\(request.method.rawValue) is not allowed on \(request.uri.path); use \(allow)",
                        headers: [.allow: allow])
                }
            }
            if let unavailable = error as? IndexUnavailable {
                // The operator's to fix (the database), with the cause the answer leaves out.
                context.logger.error("\(request.method.rawValue) \(request.uri.path): \(unavailable)")
            } else if problem.status == .serviceUnavailable {
                // Back-pressure (captures waiting, streams at their limit): the client retries
                // after Retry-After; an operator alerting on errors would be paged for load.
                context.logger.notice("\(request.method.rawValue) \(request.uri.path): \(problem.detail)")
            } else if problem.status.code >= 500 {
                context.logger.error("\(request.method.rawValue) \(request.uri.path): \(problem.detail)")
            }
            return try problem.response(from: request, context: context)
        }
    }
}
