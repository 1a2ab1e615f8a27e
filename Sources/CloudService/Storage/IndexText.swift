import Foundation

/// How both indexes keep a capture's tags and uploaded file names: JSON text, written the same
/// way by each, since the listing's text search looks into it (`?q=TUM_depth` finds a file name).
enum IndexText {
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
