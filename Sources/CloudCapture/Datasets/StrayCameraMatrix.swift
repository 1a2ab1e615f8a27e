import CloudCore
import SafeIO

/// A Stray Scanner export's `camera_matrix.csv`: ARKit's 3x3 intrinsic matrix, one row per line,
/// comma-separated (`fx, 0, cx` / `0, fy, cy` / `0, 0, 1`), in pixels of the video's frames
/// (`rgb.mp4`); the app writes it once, from the last frame.
enum StrayCameraMatrix {
    /// Three lines of three numbers; anything this large is not one.
    static let maxBytes = 4 << 10

    /// The intrinsics at the video's frame size, `width` x `height`.
    static func read(path: String, width: Int, height: Int) throws -> CameraIntrinsics {
        let bytes = try InputFile.readAll(path, role: "Stray Scanner's camera matrix", limit: maxBytes)
        return try parse(bytes, origin: path, width: width, height: height)
    }

    static func parse(_ bytes: [UInt8], origin: String, width: Int, height: Int) throws -> CameraIntrinsics {
        func bad(_ problem: String) -> CloudError { .badInput(.file(origin), "\(problem)") }
        let lines = StrayCSV.lines(bytes).filter { !$0.text.allSatisfy(\.isWhitespace) }
        guard lines.count == 3 else {
            throw bad("\(lines.count) line(s); a camera matrix is 3 lines of 3 comma-separated numbers (fx, 0, cx / 0, fy, cy / 0, 0, 1)")
        }
        let k = try lines.map { line in try StrayCSV.numbers(line, count: 3, origin: origin, what: "a row of the camera matrix") }
        // cloudgen's pinhole has no skew, and a last row other than (0, 0, 1) is no intrinsic matrix.
        guard k[1][0] == 0, k[2] == [0, 0, 1] else {
            throw bad("not an intrinsic matrix (expected fx, 0, cx / 0, fy, cy / 0, 0, 1)")
        }
        guard k[0][1] == 0 else { throw bad("the skew (row 1, column 2) is \(k[0][1]); cloudgen's camera model has none") }
        let intrinsics = CameraIntrinsics(
            fx: k[0][0], fy: k[1][1], cx: k[0][2], cy: k[1][2], referenceWidth: width, referenceHeight: height)
        try intrinsics.validate(origin: origin)
        return intrinsics
    }
}

/// The comma-separated text Stray Scanner writes (`camera_matrix.csv`, `odometry.csv`): lines of
/// numbers with a space after each comma.
enum StrayCSV {
    struct Line {
        /// 1-based, for messages.
        var number: Int
        var text: Substring
    }

    /// The lines of a text file, LF or CRLF; bytes that are not UTF-8 become U+FFFD and fail as
    /// numbers. Split as bytes: Swift's String takes CR LF for one character, never equal to LF.
    static func lines(_ bytes: [UInt8]) -> [Line] {
        bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated().map { index, line in
            let text = line.last == 0x0D ? line.dropLast() : line
            return Line(number: index + 1, text: Substring(String(decoding: text, as: UTF8.self)))
        }
    }

    /// The fields of a line, spaces around each trimmed.
    static func fields(_ line: Line) -> [Substring] {
        line.text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces() }
    }

    /// Exactly `count` finite numbers.
    static func numbers(_ line: Line, count: Int, origin: String, what: String) throws -> [Double] {
        let fields = fields(line)
        guard fields.count == count else {
            throw CloudError.badInput(.file(origin), "line \(line.number): \(fields.count) field(s), \(what) has \(count)")
        }
        return try fields.enumerated().map { index, field in
            guard let value = Double(field), value.isFinite else {
                throw CloudError.badInput(
                    .file(origin),
                    "line \(line.number): field \(index + 1) '\(MessageText.shortened(String(field), to: 40))' is not a finite number (\(what))"
                )
            }
            return value
        }
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return s
    }
}
