/// What GET /v1/captures asks the index for: a page of captures in one order, optionally only
/// those whose text matches and that carry every tag named.
public struct CaptureQuery: Sendable {
    public enum Sort: String, Sendable, CaseIterable {
        case created
        case newest = "-created"
        case name
        case nameDescending = "-name"
        case points
        case mostPoints = "-points"

        /// Whether the order runs from the largest key down.
        var descending: Bool { rawValue.hasPrefix("-") }
    }

    public var limit: Int
    /// The last capture of the previous page: the page starts after it in this order.
    public var after: CaptureID?
    public var sort: Sort
    /// Words searched for, case-insensitively, in the name, note, source and uploaded file names.
    public var text: String?
    /// Only captures that carry all of these.
    public var tags: [String]

    public init(limit: Int, after: CaptureID? = nil, sort: Sort = .newest, text: String? = nil, tags: [String] = []) {
        self.limit = limit
        self.after = after
        self.sort = sort
        self.text = text
        self.tags = tags
    }
}
