import CloudCore
import Foundation
import SafeIO

/// A TUM RGB-D sequence's `groundtruth.txt`: "timestamp tx ty tz qx qy qz qw" lines (`#` starts a
/// comment), the color camera's optical centre and orientation in the motion-capture world, at
/// the capture system's own rate (100 Hz or more, so not at the frames' times). TUM's depth images
/// are registered to the color camera, so the pose places the depth frame's points as it is.
public struct TUMGroundTruth: Sendable {
    public struct Sample: Sendable {
        /// Seconds, in the sequence's clock.
        public var timestamp: Double
        /// Camera-to-world, in the camera axes cloudgen uses (TUM's: x right, y down, z forward).
        public var pose: Pose
    }

    public static let fileName = "groundtruth.txt"
    /// As the TUM tools associate: the nearest sample, if within 20 ms.
    public static let maxGap = 0.020
    /// The longest TUM sequences' ground truth is a few megabytes.
    static let maxBytes = 64 << 20

    /// Sorted by time.
    public let samples: [Sample]

    public init(path: String) throws {
        let data = Data(try InputFile.readAll(path, role: "the TUM ground-truth file", limit: Self.maxBytes))
        guard let text = String(data: data, encoding: .utf8) else { throw CloudError.badInput(.file(path), "not a text file") }
        var samples: [Sample] = []
        for (i, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: \.isWhitespace)
            let values = fields.compactMap { Double($0) }.filter(\.isFinite)
            guard fields.count == 8, values.count == 8 else {
                throw CloudError.badInput(
                    .file(path),
                    "line \(i + 1): expected 'timestamp tx ty tz qx qy qz qw' (8 finite numbers), found '\(MessageText.shortened(line, to: 80))'"
                )
            }
            guard
                let pose = Pose(translation: SIMD3(values[1], values[2], values[3]), w: values[7], x: values[4], y: values[5], z: values[6])
            else {
                throw CloudError.badInput(.file(path), "line \(i + 1): the quaternion qx qy qz qw is zero, which is no orientation")
            }
            if let problem = pose.placementProblem {
                throw CloudError.badInput(.file(path), "line \(i + 1) (the pose at \(fields[0]) s): \(problem)")
            }
            samples.append(Sample(timestamp: values[0], pose: pose))
        }
        guard !samples.isEmpty else { throw CloudError.badInput(.file(path), "holds no pose") }
        // Stable, so that of two samples at one time the first listed wins.
        self.samples = samples.enumerated().sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }.map(\.element)
    }

    /// The pose nearest in time to `timestamp`, if it is within `maxGap` (the earlier on a tie).
    public func pose(at timestamp: Double) -> Pose? {
        guard let nearest = NearestInTime.index(in: samples, to: timestamp, time: \.timestamp),
            abs(samples[nearest].timestamp - timestamp) <= Self.maxGap + NearestInTime.slack
        else { return nil }
        return samples[nearest].pose
    }
}
