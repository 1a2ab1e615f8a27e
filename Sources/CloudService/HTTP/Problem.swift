import CloudCore
import Foundation
import Hummingbird
import SafeIO

/// An RFC 9457 problem (`application/problem+json`): every error the service answers with. `field`
/// names the form part, JSON key or query parameter at fault, so a client can point at it; `part`
/// names the uploaded file part whose content is at fault (a corrupt depth image).
public struct Problem: HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    public var detail: String
    public var field: String?
    public var part: String?
    /// Allow (405), Retry-After (503).
    public var headers: HTTPFields

    public init(_ status: HTTPResponse.Status, _ detail: String, field: String? = nil, headers: HTTPFields = [:]) {
        self.status = status
        self.detail = MessageText.fitted(detail, limit: 1000)
        self.field = field
        self.headers = headers
    }

    static func badRequest(_ detail: String, field: String? = nil) -> Problem { Problem(.badRequest, detail, field: field) }
    static func notFound(_ detail: String) -> Problem { Problem(.notFound, detail) }
    static func unprocessable(_ detail: String, field: String? = nil) -> Problem { Problem(.unprocessableContent, detail, field: field) }
    static func unsupportedMediaType(_ detail: String) -> Problem { Problem(.unsupportedMediaType, detail) }
    /// The answer to a request whose client has gone (never read): 499, nginx's status for it,
    /// so that /metrics tells client aborts from server errors.
    static let clientClosed = Problem(
        HTTPResponse.Status(code: 499, reasonPhrase: "Client Closed Request"),
        "the connection closed before the answer (the client left, or stalled past --idle-timeout); its work was cancelled")

    static func tooLarge(limit: Int) -> Problem {
        Problem(.contentTooLarge, "the request body is larger than the \(limit >> 20) MiB this server accepts (--max-upload-mb)")
    }

    /// A problem for any error a handler throws. The pipeline's refusals are the client's input
    /// (422: bad input, or more memory or CPU than a request may have); its I/O failures are the
    /// server's (500, with the cause, since it is ours to fix). An engine error is worded with
    /// fields for options, and its subject names the field or part at fault. A shared index that
    /// cannot be reached is 503 with Retry-After: nothing was stored, and a retry will do.
    static func from(_ error: Error) -> Problem {
        switch error {
        case let problem as Problem:
            return problem
        case let busy as MemoryBusy:
            return Problem(.serviceUnavailable, busy.description, headers: [.retryAfter: "2"])
        case is IndexUnavailable:
            return Problem(
                .serviceUnavailable, "the capture index is unavailable for the moment; retry shortly", headers: [.retryAfter: "5"])
        case let error as CloudError:
            var problem = Problem(error.kind == .deviceOrIO ? .internalServerError : .unprocessableContent, FieldWording.detail(error))
            switch error.subject {
            case let .option(option)?: problem.field = FieldWording.field(option)
            case let .part(name, _)?:
                // `field` names the form part at fault, as for a missing one; `part` says it is the file's content.
                problem.field = name
                problem.part = name
            default: break
            }
            return problem
        case let error as HTTPError:
            return Problem(error.status, error.body ?? error.status.reasonPhrase)
        case let error as HTTPResponseError:
            return Problem(error.status, error.status.reasonPhrase)
        default:
            return Problem(.internalServerError, "internal error: \(error)")
        }
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = try document(instance: request.uri.path)
        var headers = self.headers
        headers[.contentType] = "application/problem+json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The problem+json body, for the request of path `instance`.
    func document(instance: String) throws -> Data {
        try JSONEncoder.documents.encode(
            Body(title: status.reasonPhrase, status: status.code, detail: detail, instance: instance, field: field, part: part))
    }

    /// The document RFC 9457 describes; `field` is left out when nothing in particular is at fault.
    private struct Body: Encodable {
        var type = "about:blank"
        var title: String
        var status: Int
        var detail: String
        var instance: String
        var field: String?
        var part: String?
    }
}
