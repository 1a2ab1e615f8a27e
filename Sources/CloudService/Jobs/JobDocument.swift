import Foundation

extension JobRecord {
    /// The job as GET /v1/jobs/{id} and its events give it.
    func json() throws -> Data {
        try JSONEncoder.documents.encode(JobDocument(self))
    }
}

/// A job's JSON: every key always there, null until it has a value.
struct JobDocument: Encodable {
    var id: String
    var state: String
    var created: String
    var updated: String
    var framesDone: Int
    var framesTotal: Int?
    var capture: String?
    /// Stored as the JSON it is answered with; null too if it could not be read back.
    var problem: JSONValue?

    init(_ job: JobRecord) {
        id = job.id.description
        state = job.state.rawValue
        created = CaptureDocument.timestamp(job.created)
        updated = CaptureDocument.timestamp(job.updated)
        framesDone = job.framesDone
        framesTotal = job.framesTotal
        capture = job.captureID.map { "/v1/captures/\($0)" }
        problem = job.problem.flatMap { try? JSONDecoder().decode(JSONValue.self, from: Data($0.utf8)) }
    }

    private enum CodingKeys: String, CodingKey {
        case id, state, created, updated
        case framesDone = "frames_done"
        case framesTotal = "frames_total"
        case capture, problem
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(state, forKey: .state)
        try container.encode(created, forKey: .created)
        try container.encode(updated, forKey: .updated)
        try container.encode(framesDone, forKey: .framesDone)
        // Optionals written as null, not left out: clients read every key.
        try container.encode(framesTotal, forKey: .framesTotal)
        try container.encode(capture, forKey: .capture)
        try container.encode(problem ?? .null, forKey: .problem)
    }
}
