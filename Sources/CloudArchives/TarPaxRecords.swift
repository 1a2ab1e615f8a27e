/// What a POSIX pax extended header ('x') says about the member after it. Its records are
/// "LENGTH KEY=VALUE\n", LENGTH counting the whole record in decimal. Only the keys that change
/// where or how much is extracted matter here: `path` and `size`. GNU sparse files (`GNU.sparse.*`)
/// are refused by the caller: their data is a map, not the file.
struct TarPaxRecords {
    var path: [UInt8]?
    var size: Int?
    var isSparse = false

    /// nil when the records do not parse (a length that does not fit, no '=', a bad size).
    init?(_ bytes: [UInt8]) {
        var start = 0
        while start < bytes.count {
            // Trailing NULs pad some writers' headers.
            if bytes[start...].allSatisfy({ $0 == 0 }) { break }
            guard let space = bytes[start...].prefix(20).firstIndex(of: 0x20),
                let length = Self.decimal(bytes[start..<space]), length > space - start + 1,
                length <= bytes.count - start, bytes[start + length - 1] == 0x0A
            else { return nil }
            let record = bytes[(space + 1)..<(start + length - 1)]
            guard let equals = record.firstIndex(of: UInt8(ascii: "=")) else { return nil }
            let key = String(decoding: record[..<equals], as: UTF8.self)
            let value = Array(record[(equals + 1)...])
            switch key {
            case "path":
                path = value
            case "size":
                guard let n = Self.decimal(value[...]) else { return nil }
                size = n
            default:
                if key.hasPrefix("GNU.sparse.") { isSparse = true }
            }
            start += length
        }
    }

    /// A non-negative decimal of at most 18 digits.
    private static func decimal(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }
}
