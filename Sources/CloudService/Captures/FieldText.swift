import Foundation

/// A JSON scalar read as a form field's text, so that `"frames": 8` and `"frames": "8"`, or
/// `"fuse": true` and `"fuse": "true"`, go through the same parser and messages. Null, arrays
/// and objects are refused.
struct FieldText: Decodable {
    var text: String
    /// JSON's `true` itself (not the string "true").
    var isTrue = false

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            text = value ? "true" : "false"
            isTrue = value
        } else if let value = try? container.decode(Int.self) {
            text = String(value)
        } else if let value = try? container.decode(Double.self) {
            // 8.0 is the count 8, as a form's "8" would be.
            text = value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : value.description
        } else {
            text = try container.decode(String.self)
        }
    }
}
