extension String {
    /// The text of a NUL-terminated string held in a fixed-size C array, which Swift imports as a
    /// tuple (`char message[512]` in the C libraries' status structs): up to the first NUL, or the
    /// whole array when it has none; bytes that are not UTF-8 become U+FFFD.
    public init<CharArray>(fixedCString array: CharArray) {
        self = withUnsafeBytes(of: array) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }
}
