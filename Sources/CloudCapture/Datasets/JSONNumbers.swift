import CloudCore
import Foundation
import SafeIO

/// A value of a phone app's JSON metadata as far as it matters: numbers, arrays of them, and
/// anything else only recognised as not one. Decoded with JSONDecoder, not JSONSerialization's
/// NSNumber, which would take a boolean or a string for a number.
indirect enum JSONNumbers: Decodable {
    case number(Double)
    case array([JSONNumbers])
    case other

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let items = try? container.decode([JSONNumbers].self) {
            self = .array(items)
        } else {
            self = .other
        }
    }

    /// The JSON object in the file at `path` (`role` and `limit` as InputFile takes them): bad input
    /// naming the file when it is not an object (`holds` says what one of its kind holds) or
    /// repeats a key.
    static func object(at path: String, role: String, limit: Int, holds: String) throws -> [String: JSONNumbers] {
        let bytes = try InputFile.readAll(path, role: role, limit: limit)
        guard (try? JSONSerialization.jsonObject(with: Data(bytes))) is [String: Any] else {
            throw CloudError.badInput(.file(path), "not a JSON object (\(holds))")
        }
        try JSONDuplicateKeys.check(bytes, origin: path)
        return try JSONDecoder().decode([String: JSONNumbers].self, from: Data(bytes))
    }
}

extension Pose {
    /// A camera-to-world pose whose camera has OpenGL's axes (ARKit's too: x right, y up, looking
    /// down its -z) given cloudgen's camera axes (y down, looking down +z): the same camera turned
    /// half a turn about x, so the rotation's second and third columns change sign.
    var fromOpenGLCameraAxes: Pose {
        let (r0, r1, r2) = rotation
        let flip = SIMD3<Double>(1, -1, -1)
        return Pose(rows: (r0 * flip, r1 * flip, r2 * flip), translation: translation)
    }
}
