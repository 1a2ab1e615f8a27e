/// Making a message fit one terminal line (Docs/reliability.md "Error messages"): every
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
            || scalar.properties.generalCategory == .lineSeparator || scalar.properties.generalCategory == .paragraphSeparator
        {
            return "\\u{" + String(v, radix: 16) + "}"
        }
        return String(Character(scalar))
    }

    /// `text` escaped and at most `limit` characters long: its longest space-separated words
    /// (file names, flag values) are cut in the middle to a common length, with `…`, so that
    /// both ends of every name and all the short words of the problem survive. The first word,
    /// the file or flag the message is about, is kept whole while the others can give way
    /// enough. Only when even that cannot fit (thousands of words) is the whole text cut in the middle.
    public static func fitted(_ text: String, limit: Int = lineLimit - "cloudgen: ".count) -> String {
        let words = text.split(separator: " ", omittingEmptySubsequences: false).map { escaped(String($0)) }
        let whole = words.joined(separator: " ")
        if whole.count <= limit { return whole }
        // A word is never cut below a dozen characters.
        let minimumCap = 12
        let rest = Array(words.dropFirst())
        if let cap = largestCap(rest, budget: limit - words[0].count - 1, minimum: minimumCap) {
            return ([words[0]] + rest.map { shortened($0, to: cap) }).joined(separator: " ")
        }
        if let cap = largestCap(words, budget: limit, minimum: minimumCap) {
            return words.map { shortened($0, to: cap) }.joined(separator: " ")
        }
        return shortened(whole, to: limit)
    }

    /// The largest length every word may keep so that `words` joined by spaces fit `budget`;
    /// nil when even `minimum` does not.
    private static func largestCap(_ words: [String], budget: Int, minimum: Int) -> Int? {
        let counts = words.map(\.count)
        let length = { (cap: Int) -> Int in counts.reduce(max(counts.count - 1, 0)) { $0 + min($1, cap) } }
        guard length(minimum) <= budget else { return nil }
        var lo = minimum
        var hi = max(counts.max() ?? minimum, minimum)
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if length(mid) <= budget { lo = mid } else { hi = mid - 1 }
        }
        return lo
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
