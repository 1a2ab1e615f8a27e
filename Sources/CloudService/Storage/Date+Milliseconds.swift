import Foundation

/// The index keeps times as whole milliseconds since 1970 (INTEGER columns, as an id's time is),
/// and the records round their dates to that already, so that a record reads back equal.
extension Date {
    var unixMilliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    init(unixMilliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(unixMilliseconds) / 1000)
    }

    /// This date rounded to the millisecond, as the index gives it back.
    var wholeMilliseconds: Date { Date(unixMilliseconds: unixMilliseconds) }
}
