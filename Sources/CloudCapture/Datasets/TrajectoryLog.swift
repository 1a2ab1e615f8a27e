import CloudCore
import Foundation
import SafeIO

/// Camera-to-world poses in the Open3D / Redwood `.log` format: per frame a line
/// "id id frame-index" then the 4x4 matrix, row by row. Every matrix must be rigid (a rotation and
/// a translation, last row 0 0 0 1), as a capture bundle's poses must be.
public enum TrajectoryLog {
    /// A trajectory of a million frames is ~100 MB of text: anything larger is not one.
    static let maxBytes = 128 << 20

    /// A frame's five lines take about 400 bytes as Open3D prints them (17 significant digits);
    /// 2 KB allows any spacing and precision that still means something.
    static let maxBytesPerFrame = 2048

    /// The poses of the log at `path`. With `frames` (the sequence's frame count, which the log
    /// must match) the file may hold at most `maxBytesPerFrame` per frame: a log far larger than
    /// its sequence is refused from its size, before it is read and parsed.
    public static func read(_ path: String, frames: Int? = nil) throws -> [Pose] {
        let limit = frames.map { min(maxBytes, $0 * maxBytesPerFrame + 4096) } ?? maxBytes
        let role = frames.map { "the trajectory log of \($0) frame\($0 == 1 ? "" : "s")" } ?? "the trajectory log"
        let data = Data(try InputFile.readAll(path, role: role, limit: limit))
        guard let text = String(data: data, encoding: .utf8) else { throw CloudError.badInput(.file(path), "not a text file") }
        let lines = text.split(whereSeparator: \.isNewline).map { $0.split(whereSeparator: \.isWhitespace) }.filter { !$0.isEmpty }
        guard lines.count % 5 == 0, !lines.isEmpty else {
            throw CloudError.badInput(
                .file(path), "\(lines.count) non-empty lines; a trajectory log has 5 per frame (a header and 4 matrix rows)")
        }
        var poses: [Pose] = []
        poses.reserveCapacity(lines.count / 5)
        for f in 0..<(lines.count / 5) {
            let header = lines[5 * f]
            guard header.count == 3, header.allSatisfy({ Int($0) != nil }) else {
                throw CloudError.badInput(
                    .file(path), "line \(5 * f + 1): expected 'id id frame', found '\(header.joined(separator: " "))'")
            }
            var rows: [[Double]] = []
            for r in 1...4 {
                let values = lines[5 * f + r].compactMap { Double($0) }
                guard values.count == 4, values.allSatisfy(\.isFinite) else {
                    throw CloudError.badInput(.file(path), "line \(5 * f + r + 1): expected 4 finite numbers")
                }
                rows.append(values)
            }
            guard rows[3] == [0, 0, 0, 1] else {
                throw CloudError.badInput(.file(path), "frame \(f): the matrix's last row must be 0 0 0 1")
            }
            let pose = Pose(
                rows: (
                    SIMD3(rows[0][0], rows[0][1], rows[0][2]),
                    SIMD3(rows[1][0], rows[1][1], rows[1][2]),
                    SIMD3(rows[2][0], rows[2][1], rows[2][2])
                ),
                translation: SIMD3(rows[0][3], rows[1][3], rows[2][3]))
            // A camera-to-world pose moves the camera, it does not scale or mirror the scene; a
            // bundle written from these frames (--bundle) would be refused when read back.
            if let problem = pose.placementProblem {
                throw CloudError.badInput(.file(path), "frame \(f): \(problem)")
            }
            poses.append(pose)
        }
        return poses
    }
}
