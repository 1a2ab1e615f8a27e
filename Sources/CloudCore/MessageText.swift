/// Making a message fit one terminal line (issue 10, Docs/reliability.md "Error messages"): every
/// error is exactly one line of at most `limit` characters, however long or strange the file
/// names and flag values it echoes. Used by the CLI's last word and by anything else that prints
/// a message with someone else's text in it.
public enum MessageText {
    /// The longest line cloudgen prints for an error, its `cloudgen: ` prefix included.
    public static let lineLimit = 300

    /// `text` with control characters and invisible format characters (bidi overrides) escaped,
    /// so that a file name cannot split the line or restyle the terminal: `\n`, `\t`, `\r`,
    /// `\x1b`, `\u{202e}`; a backslash stays as it is.
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars { out += escaped(scalar) }
        return out
    }

    static func escaped(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": return "\\n"
        case "\t": return "\\t"
        case "\r": return "\\r"
        default: break
        }
        let v = scalar.value
        if v < 0x20 || v == 0x7F {
            return "\\x" + (v < 0x10 ? "0" : "") + String(v, radix: 16)
        }
        if (0x80..<0xA0).contains(v) || scalar.properties.generalCategory == .format
            || scalar.properties.generalCategory == .lineSeparator || scalar.properties.generalCategory == .paragraphSeparator {
            return "\\u{" + String(v, radix: 16) + "}"
        }
        return String(Character(scalar))
    }

    /// `text` escaped and at most `limit` characters long: its longest space-separated words
    /// (file names, flag values) are cut in the middle to a common length, with `…`, so that
    /// both ends of every name and all the short words of the problem survive. Only when even
    /// that cannot fit (thousands of words) is the whole text cut in the middle.
    public static func fitted(_ text: String, limit: Int = lineLimit - "cloudgen: ".count) -> String {
        let words = text.split(separator: " ", omittingEmptySubsequences: false).map { escaped(String($0)) }
        let length = { (cap: Int) -> Int in
            words.reduce(words.count - 1) { $0 + min($1.count, cap) }
        }
        if length(Int.max) <= limit { return words.joined(separator: " ") }
        // The largest common cap that fits; a word is never cut below a dozen characters.
        let minimumCap = 12
        var lo = minimumCap, hi = words.map(\.count).max() ?? minimumCap
        guard length(lo) <= limit else { return shortened(words.joined(separator: " "), to: limit) }
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if length(mid) <= limit { lo = mid } else { hi = mid - 1 }
        }
        return words.map { shortened($0, to: lo) }.joined(separator: " ")
    }

    /// `text` cut in the middle to at most `limit` characters, with `…` where the cut is.
    public static func shortened(_ text: String, to limit: Int) -> String {
        guard text.count > limit else { return text }
        guard limit > 1 else { return "…" }
        let keep = limit - 1
        let head = (keep + 1) / 2
        return String(text.prefix(head)) + "…" + String(text.suffix(keep - head))
    }
}
