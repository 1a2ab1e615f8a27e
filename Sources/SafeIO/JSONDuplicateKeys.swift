import CloudCore

/// Finds an object key that appears twice in the same JSON object. Foundation's parsers keep one
/// of the two silently, so `{"fx": 525, "fx": 1}` would be read as either; a calibration file or
/// manifest that says two things is refused instead. Call it on text Foundation has already
/// parsed: it only follows strings and braces, and trusts the syntax.
public enum JSONDuplicateKeys {
    /// Throws `CloudError.badInput` "ORIGIN: key 'K' appears twice in one object" for the first
    /// duplicate; `origin` names the file.
    public static func check(_ bytes: [UInt8], origin: String) throws {
        if let key = firstDuplicate(in: bytes) {
            throw CloudError.badInput(.file(origin), "key '\(key.prefix(40))' appears twice in one object")
        }
    }

    /// The first key that appears twice in one object, or nil when every object's keys differ.
    public static func firstDuplicate(in bytes: [UInt8]) -> String? {
        // One set of keys per open object; arrays push nil.
        var open: [Set<[UInt8]>?] = []
        var i = 0
        // Whether the string that just ended is followed by ':', i.e. is a key.
        func isKey(after end: Int) -> Bool {
            var j = end
            while j < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[j]) { j += 1 }
            return j < bytes.count && bytes[j] == UInt8(ascii: ":")
        }
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "{"): open.append([])
            case UInt8(ascii: "["): open.append(nil)
            case UInt8(ascii: "}"), UInt8(ascii: "]"): _ = open.popLast()
            case UInt8(ascii: "\""):
                var j = i + 1
                while j < bytes.count, bytes[j] != UInt8(ascii: "\"") { j += bytes[j] == UInt8(ascii: "\\") ? 2 : 1 }
                let key = Array(bytes[(i + 1)..<min(j, bytes.count)])
                if isKey(after: j + 1), var keys = open.last ?? nil {
                    guard keys.insert(key).inserted else { return String(decoding: key, as: UTF8.self) }
                    open[open.count - 1] = keys
                }
                i = j
            default: break
            }
            i += 1
        }
        return nil
    }
}
