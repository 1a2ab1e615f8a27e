/// The SELECT of a page of captures, for both indexes: keyset paging on (sort key, id), so that a
/// page starts right after the previous one's last row however many rows came or went before
/// it. The anchor's own key is read in the same statement (a page is one snapshot), as a row
/// value, so that the database seeks the (key, id) index rather than scanning it. What the two
/// databases spell differently is the `Dialect`'s; each binds values its own way (`bind` returns
/// the placeholder, and is called in the order the placeholders appear).
struct CapturePageSQL {
    enum Value {
        case text(String)
        case integer(Int)
    }

    struct Dialect {
        var sortNameColumn: String
        /// capture_tag's column naming the capture.
        var tagCaptureColumn: String
        /// The condition that `column` holds `text` (bound through `bind`), as the text search asks:
        /// case folded, no wildcards.
        var contains: (_ column: String, _ text: String, _ bind: (Value) -> String) -> String
    }

    static func select(_ query: CaptureQuery, _ dialect: Dialect, bind: (Value) -> String) -> String {
        let key: String? =
            switch query.sort {
            case .created, .newest: nil
            case .name, .nameDescending: dialect.sortNameColumn
            case .points, .mostPoints: "points"
            }
        let direction = query.sort.descending ? "DESC" : "ASC"
        let beyond = query.sort.descending ? "<" : ">"
        var conditions: [String] = []
        if let after = query.after?.rawValue {
            if let key {
                let anchorKey = "(SELECT \(key) FROM capture WHERE id = \(bind(.text(after))))"
                conditions.append("(\(key), id) \(beyond) (\(anchorKey), \(bind(.text(after))))")
            } else {
                conditions.append("id \(beyond) \(bind(.text(after)))")
            }
        }
        if let text = query.text, !text.isEmpty {
            conditions.append(
                "(" + ["name", "note", "source", "files"].map { dialect.contains($0, text, bind) }.joined(separator: " OR ") + ")")
        }
        let tags = Array(Set(query.tags)).sorted()
        if !tags.isEmpty {
            let column = dialect.tagCaptureColumn
            conditions.append(
                """
                id IN (SELECT \(column) FROM capture_tag WHERE tag IN (\(tags.map { bind(.text($0)) }.joined(separator: ", ")))
                       GROUP BY \(column) HAVING COUNT(*) = \(tags.count))
                """)
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let order = (key.map { ["\($0) \(direction)"] } ?? []) + ["id \(direction)"]
        return "SELECT * FROM capture \(filter) ORDER BY \(order.joined(separator: ", ")) LIMIT \(bind(.integer(max(0, query.limit))))"
    }
}
