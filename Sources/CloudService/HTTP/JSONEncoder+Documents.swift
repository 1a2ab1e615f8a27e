import Foundation

extension JSONEncoder {
    /// How the service writes its JSON documents and problems: keys sorted and slashes unescaped,
    /// so that the same content is the same bytes (an ETag, a zip member, a test's expected text);
    /// non-finite numbers of a capture's report as the strings "inf", "-inf" and "nan".
    static let documents: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }()
}
