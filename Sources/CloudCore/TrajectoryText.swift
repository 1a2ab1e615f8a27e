/// Camera poses (camera to world) as trajectory files hold them, numbers in their shortest exact
/// form: TUM RGB-D's `timestamp tx ty tz qx qy qz qw` lines (its evaluation tools read them) and
/// Redwood's trajectory.log, Open3D's PoseGraph-free format (a line `i i i+1`, then the 4x4 matrix).
public enum TrajectoryText {
    public static func tum(_ poses: [(timestamp: Double, pose: Pose)]) -> String {
        var text = "# timestamp tx ty tz qx qy qz qw\n"
        for (timestamp, pose) in poses {
            let (t, q) = (pose.translation, pose.quaternion)
            text += [timestamp, t.x, t.y, t.z, q.y, q.z, q.w, q.x].map { "\($0)" }.joined(separator: " ") + "\n"
        }
        return text
    }

    public static func redwoodLog(_ poses: [Pose]) -> String {
        var log = ""
        for (i, p) in poses.enumerated() {
            log += "\(i) \(i) \(i + 1)\n"
            for (row, t) in [(p.rotation.0, p.translation.x), (p.rotation.1, p.translation.y), (p.rotation.2, p.translation.z)] {
                log += "\(row.x) \(row.y) \(row.z) \(t)\n"
            }
            log += "0 0 0 1\n"
        }
        return log
    }
}
