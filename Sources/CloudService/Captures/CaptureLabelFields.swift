import Foundation

/// A capture's name, tags and note as clients send them (form fields at upload, JSON keys at
/// upload and in PATCH), checked here once for every door: bounded lengths, no control
/// characters, tags of a few safe characters so that `?tag=` and a comma-separated field mean
/// the same thing.
enum CaptureLabelFields {
    static let names: Set<String> = ["name", "tags", "note"]
    static let maxNameLength = 120
    static let maxNoteLength = 2000
    static let maxTagLength = 40
    static let maxTags = 20

    /// A name: surrounding spaces dropped; empty means none.
    static func name(_ text: String) throws -> String? {
        let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard name.count <= maxNameLength else {
            throw Problem.unprocessable("name: \(name.count) characters; at most \(maxNameLength)", field: "name")
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw Problem.unprocessable(
                "name \(MessageTextShort.of(name)): control characters (tabs, line breaks) are not allowed", field: "name")
        }
        return name.isEmpty ? nil : name
    }

    /// A note: free text on several lines (tabs and line breaks allowed); empty means none.
    static func note(_ text: String) throws -> String? {
        let note = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard note.count <= maxNoteLength else {
            throw Problem.unprocessable("note: \(note.count) characters; at most \(maxNoteLength)", field: "note")
        }
        guard !note.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && !"\n\t\r".unicodeScalars.contains($0) })
        else {
            throw Problem.unprocessable("note: control characters other than tabs and line breaks are not allowed", field: "note")
        }
        return note.isEmpty ? nil : note
    }

    /// Tags: each 1...40 letters, digits, `-`, `_`, `.` or `:`; duplicates dropped, order kept.
    static func tags(_ list: [String]) throws -> [String] {
        var tags: [String] = []
        for raw in list {
            let tag = raw.trimmingCharacters(in: .whitespaces)
            guard !tag.isEmpty else { continue }
            guard tag.count <= maxTagLength,
                tag.unicodeScalars.allSatisfy({
                    $0.properties.isAlphabetic || $0.properties.numericType != nil || "-_.:".unicodeScalars.contains($0)
                })
            else {
                throw Problem.unprocessable(
                    "tag \(MessageTextShort.of(tag)): needs 1...\(maxTagLength) letters, digits, '-', '_', '.' or ':'", field: "tags")
            }
            if !tags.contains(tag) { tags.append(tag) }
        }
        guard tags.count <= maxTags else {
            throw Problem.unprocessable("tags: \(tags.count) of them; at most \(maxTags)", field: "tags")
        }
        return tags
    }

    /// `tags` text: comma-separated (a form field; it may also repeat).
    static func tags(text: String) -> [String] {
        text.split(separator: ",").map(String.init)
    }

    /// The labels among an upload's form fields (the last name and note given, every tags field).
    static func labels(_ fields: [(name: String, value: String)]) throws -> CaptureLabels {
        var labels = CaptureLabels()
        var tagTexts: [String] = []
        for (name, value) in fields {
            switch name {
            case "name": labels.name = try Self.name(value)
            case "note": labels.note = try Self.note(value)
            case "tags": tagTexts += tags(text: value)
            default: continue
            }
        }
        labels.tags = try tags(tagTexts)
        return labels
    }
}
