import CloudCore
import SafeIO

/// A Stray Scanner export's `odometry.csv`: a header line `timestamp, frame, x, y, z, qx, qy, qz, qw`,
/// then one line per frame: ARKit's timestamp in seconds, the frame's number as its files name it
/// (`000005`), and its camera-to-world pose in ARKit's gravity-aligned world (y up, metres).
///
/// The app writes the rotation already turned into cloudgen's (OpenCV's) camera axes: its
/// OdometryEncoder multiplies ARKit's camera orientation by a half turn about x (`q_WA * q_AC`,
/// q_AC = (1, 0, 0, 0) as x, y, z, w) before writing it. So the quaternion is taken as it is; no
/// column of it changes sign here, as it would for ARKit's own camera transform.
struct StrayOdometry {
    static let header = ["timestamp", "frame", "x", "y", "z", "qx", "qy", "qz", "qw"]
    /// An hour at 60 frames a second is 216,000 lines of about 120 bytes.
    static let maxBytes = 128 << 20

    struct Entry {
        var timestamp: Double
        var frame: Int
        /// Camera-to-world in cloudgen's camera axes (x right, y down, z forward).
        var pose: Pose
    }

    var entries: [Entry]

    init(path: String) throws {
        try self.init(InputFile.readAll(path, role: "Stray Scanner's odometry", limit: Self.maxBytes), origin: path)
    }

    init(_ bytes: [UInt8], origin: String) throws {
        func bad(_ line: Int, _ problem: String) -> CloudError { .badInput(.file(origin), "line \(line): \(problem)") }
        var lines = StrayCSV.lines(bytes)
        // The file ends with a line break: an empty last line is no frame.
        while let last = lines.last, last.text.isEmpty { lines.removeLast() }
        guard let first = lines.first else {
            throw CloudError.badInput(
                .file(origin), "empty (expected the header '\(Self.header.joined(separator: ", "))' and a line per frame)")
        }
        let names = StrayCSV.fields(first).map(String.init)
        guard names == Self.header else {
            let older = names == Array(Self.header.dropFirst(2))
            throw bad(
                1,
                older
                    ? "the header of an older Stray Scanner (x, y, z, qx, qy, qz, qw: no timestamp or frame number), which is not read"
                    : "expected the header '\(Self.header.joined(separator: ", "))', found '\(MessageText.shortened(String(first.text), to: 80))'"
            )
        }
        var entries: [Entry] = []
        entries.reserveCapacity(lines.count - 1)
        for line in lines.dropFirst() {
            let v = try StrayCSV.numbers(
                line, count: Self.header.count, origin: origin, what: "an odometry line: " + Self.header.joined(separator: ", "))
            // Frames are numbered 0, 1, 2, ... as the app saves them; the video holds them in that order.
            guard let frame = Int(exactly: v[1]), frame == entries.count else {
                throw bad(
                    line.number,
                    "frame \(v[1]) where \(entries.count) was expected (Stray Scanner numbers its frames 0, 1, 2, ... in order)")
            }
            let (qx, qy, qz, qw) = (v[5], v[6], v[7], v[8])
            // The app writes unit quaternions as Float32 text; anything far from unit length is not one.
            let norm = (qx * qx + qy * qy + qz * qz + qw * qw).squareRoot()
            guard abs(norm - 1) <= 1e-3, let pose = Pose(translation: SIMD3(v[2], v[3], v[4]), w: qw, x: qx, y: qy, z: qz) else {
                throw bad(line.number, "the quaternion qx, qy, qz, qw has length \(norm), not 1 (a rotation)")
            }
            if let problem = pose.placementProblem { throw bad(line.number, "frame \(frame): \(problem)") }
            entries.append(Entry(timestamp: v[0], frame: frame, pose: pose))
        }
        guard !entries.isEmpty else { throw CloudError.badInput(.file(origin), "the header alone, no frame") }
        self.entries = entries
    }
}
