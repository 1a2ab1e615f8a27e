import Foundation

/// The name, tags and note keys of a JSON body (a server-side capture's, or PATCH's merge patch,
/// RFC 7396): each left out (the value stays), null (it is cleared) or given.
struct CaptureLabelPatch: Decodable {
    enum Change<Value> {
        case keep, clear
        case set(Value)
    }

    var name: Change<String>
    var note: Change<String>
    /// An array of tags, or one comma-separated string, as the form field.
    var tags: Change<[String]>

    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: JSONKey.self)
        name = try Self.change(String.self, "name", in: container, needs: "a string or null")
        note = try Self.change(String.self, "note", in: container, needs: "a string or null")
        tags = try Self.change(TagList.self, "tags", in: container, needs: "an array of strings, or null").map(\.tags)
    }

    private static func change<Value: Decodable>(
        _ type: Value.Type, _ key: String, in container: KeyedDecodingContainer<JSONKey>,
        needs: String
    ) throws -> Change<Value> {
        let codingKey = JSONKey(key)
        guard container.contains(codingKey) else { return .keep }
        if try container.decodeNil(forKey: codingKey) { return .clear }
        guard let value = try? container.decode(Value.self, forKey: codingKey) else {
            throw Problem.unprocessable("\(key): needs \(needs)", field: key)
        }
        return .set(value)
    }

    /// `labels` with the changes made, each checked as the form's fields are.
    func applied(to labels: CaptureLabels) throws -> CaptureLabels {
        var labels = labels
        switch name {
        case .keep: break
        case .clear: labels.name = nil
        case .set(let text): labels.name = try CaptureLabelFields.name(text)
        }
        switch note {
        case .keep: break
        case .clear: labels.note = nil
        case .set(let text): labels.note = try CaptureLabelFields.note(text)
        }
        switch tags {
        case .keep: break
        case .clear: labels.tags = []
        case .set(let list): labels.tags = try CaptureLabelFields.tags(list)
        }
        return labels
    }
}

extension CaptureLabelPatch.Change {
    func map<Other>(_ transform: (Value) -> Other) -> CaptureLabelPatch.Change<Other> {
        switch self {
        case .keep: .keep
        case .clear: .clear
        case .set(let value): .set(transform(value))
        }
    }
}

/// `tags` as JSON: an array of strings, or one string of comma-separated tags.
private struct TagList: Decodable {
    var tags: [String]

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            tags = CaptureLabelFields.tags(text: text)
        } else {
            tags = try container.decode([String].self)
        }
    }
}
