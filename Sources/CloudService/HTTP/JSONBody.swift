import Foundation
import SafeIO

/// Request bodies that are one JSON object: POST /v1/captures' server-side capture and PATCH's
/// labels. Their types refuse what they cannot take with a `Problem` naming the key, thrown from
/// their `init(from:)`; any other decoding failure means the body is no JSON object.
enum JSONBody {
    static func decode<Body: Decodable>(_ type: Body.Type, from data: Data) throws -> Body {
        let body: Body
        do {
            body = try JSONDecoder().decode(Body.self, from: data)
        } catch let problem as Problem {
            throw problem
        } catch {
            throw Problem.badRequest("the body is not a JSON object")
        }
        // Foundation keeps one of a repeated key's values silently; which one the client meant is unknown.
        if let key = JSONDuplicateKeys.firstDuplicate(in: [UInt8](data)) {
            throw Problem.badRequest("key \(MessageTextShort.of(key)) appears twice; send each key once", field: key)
        }
        return body
    }

    /// The first key of `container` not among `known`, in sorted order so that the answer is the
    /// same whatever order the client wrote them in.
    static func unknownKey(in container: KeyedDecodingContainer<JSONKey>, known: Set<String>) -> String? {
        container.allKeys.map(\.stringValue).sorted().first { !known.contains($0) }
    }
}

/// Any key of a JSON object, for bodies whose keys are checked against a list rather than fixed
/// by a type.
struct JSONKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) {
        stringValue = name
    }

    init(stringValue: String) {
        self.init(stringValue)
    }

    init?(intValue: Int) {
        nil
    }
}
