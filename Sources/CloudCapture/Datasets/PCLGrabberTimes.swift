import Foundation

/// When PCL's grabber took each frame: it names frames by their capture time,
/// `frame_YYYYMMDDTHHMMSS.ffffff` (local time, microseconds). A frame's timestamp is that time in
/// seconds (as if UTC: only differences matter), so that a stream pushes the recording at its
/// pace. Names that do not all follow the pattern, or run backwards, time the frames at
/// `DatasetFrame.nominalFrameRate` instead.
enum PCLGrabberTimes {
    static func seconds(names: [String]) -> [Double] {
        let parsed = names.compactMap(seconds(name:))
        if parsed.count == names.count, zip(parsed, parsed.dropFirst()).allSatisfy({ $0 <= $1 }) { return parsed }
        return names.indices.map { Double($0) / DatasetFrame.nominalFrameRate }
    }

    /// `frame_20121214T142255.814212` as seconds since 1970-01-01T00:00:00; nil for another name.
    static func seconds(name: String) -> Double? {
        guard name.hasPrefix("frame_") else { return nil }
        let stamp = Array(name.utf8.dropFirst("frame_".count))
        guard stamp.count >= 15, stamp[8] == UInt8(ascii: "T") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in stamp[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8), let hour = number(9..<11),
            let minute = number(11..<13), let second = number(13..<15), (1...12).contains(month), (1...31).contains(day),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if stamp.count > 15 {
            guard stamp[15] == UInt8(ascii: "."), stamp.count > 16, stamp.count <= 25, let digits = number(16..<stamp.count) else {
                return nil
            }
            fraction = Double(digits) / pow10(stamp.count - 16)
        }
        let date = DateComponents(
            calendar: calendar, timeZone: calendar.timeZone, year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        return date.date.map { $0.timeIntervalSince1970 + fraction }
    }

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    private static func pow10(_ n: Int) -> Double { (0..<n).reduce(1.0) { value, _ in value * 10 } }
}
