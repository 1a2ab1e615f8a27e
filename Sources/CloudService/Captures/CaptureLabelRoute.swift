import Foundation
import Hummingbird
import NIOFoundationEssentialsCompat

/// PATCH /v1/captures/{id}: a JSON merge patch (RFC 7396) of the capture's name, tags and note.
/// A key left out keeps its value, `null` clears it; nothing else of a capture changes.
struct CaptureLabelRoute {
    let index: any CaptureIndex

    var collection: RouteCollection<BasicRequestContext> {
        let routes = RouteCollection(context: BasicRequestContext.self)
        routes.patch("/v1/captures/{id}") { request, context in
            let id = try CaptureID(path: context.parameters.get("id"), noun: "capture")
            let type = request.headers[.contentType]?.lowercased() ?? ""
            guard type.hasPrefix("application/merge-patch+json") || type.hasPrefix("application/json") else {
                throw Problem.unsupportedMediaType(
                    "PATCH /v1/captures/{id} takes application/merge-patch+json (or application/json): {\"name\": ..., \"tags\": [...], \"note\": ...}"
                )
            }
            let body = try await request.body.collect(upTo: 64 << 10)
            let patch = try JSONBody.decode(LabelPatchBody.self, from: Data(buffer: body)).patch
            guard let current = try await index.capture(id) else { throw Problem.notFound("no capture \(id)") }
            let labels = try patch.applied(to: current.labels)
            guard let updated = try await index.updateLabels(id, labels) else { throw Problem.notFound("no capture \(id)") }
            return Response.json(try updated.document(), status: .ok, headers: [.eTag: updated.documentETag])
        }
        return routes
    }
}

/// PATCH's body: the labels and nothing else.
private struct LabelPatchBody: Decodable {
    var patch: CaptureLabelPatch

    init(from decoder: Decoder) throws {
        if let unknown = JSONBody.unknownKey(in: try decoder.container(keyedBy: JSONKey.self), known: CaptureLabelFields.names) {
            throw Problem.badRequest(
                "unknown key \(MessageTextShort.of(unknown)); a capture's name, tags and note can change, nothing else", field: unknown)
        }
        patch = try CaptureLabelPatch(from: decoder)
    }
}
