import Foundation
import Hummingbird

extension Response {
    /// A JSON answer: `body` as application/json.
    static func json(_ body: Data, status: HTTPResponse.Status, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
