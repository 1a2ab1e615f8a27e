import Foundation
import HTTPTypes

/// Why a job failed, as its row keeps it and its `problem` key shows it: the problem's status,
/// title and detail (a job has no request of its own to name as `instance`).
struct JobProblem: Encodable {
    var status: Int
    var title: String
    var detail: String

    init(_ problem: Problem) {
        status = problem.status.code
        title = problem.status.reasonPhrase
        detail = problem.detail
    }

    /// The JSON text the index stores.
    func stored() throws -> String {
        String(decoding: try JSONEncoder.documents.encode(self), as: UTF8.self)
    }
}
