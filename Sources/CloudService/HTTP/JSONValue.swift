import Foundation

/// Any JSON value. A capture's document is the pipeline's report (whose shape the pipeline owns
/// and whose stored copies outlive this version) with the service's own keys laid over it, so the
/// service keeps it as a value it can read and change key by key rather than as a type of its own.
enum JSONValue: Codable, Equatable, Sendable {
    case null
    case bool(Bool)
    /// Whole numbers stay whole: `points` reads back as 1234, never 1234.0.
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// `value` as the JSON its own encoding makes (the report's floats as their shortest decimals,
    /// non-finite ones as the strings "inf", "-inf" and "nan").
    init(encoding value: some Encodable) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: try JSONEncoder.documents.encode(value))
    }

    func encoded() throws -> Data {
        try JSONEncoder.documents.encode(self)
    }

    /// A key of an object; nil for a key it lacks or a value that is no object. Setting a key of
    /// a value that is no object does nothing.
    subscript(key: String) -> JSONValue? {
        get {
            guard case .object(let object) = self else { return nil }
            return object[key]
        }
        set {
            guard case .object(var object) = self else { return }
            object[key] = newValue
            self = .object(object)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension JSONValue {
    init(_ text: String?) {
        self = text.map(JSONValue.string) ?? .null
    }

    init(_ texts: [String]) {
        self = .array(texts.map(JSONValue.string))
    }

    init(_ texts: [String: String]) {
        self = .object(texts.mapValues(JSONValue.string))
    }
}
