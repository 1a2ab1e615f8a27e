import CloudCore

/// Where the camera stood, in the cloud's own coordinates, as cloud files record it: PCD's
/// `VIEWPOINT tx ty tz qw qx qy qz` line (PCL's sensor origin and orientation) and, in PLY,
/// `comment cloudgen viewpoint tx ty tz qw qx qy qz`. A camera-frame cloud's viewpoint is the
/// identity (the default PCL writes); a world-frame capture's is its camera's pose, which lets a
/// renderer show the file from the camera that took it, upright in its world.
extension Pose {
    /// The seven numbers of a VIEWPOINT line: translation, then a unit quaternion (w first).
    public var viewpoint: [Double] {
        let q = quaternion
        return [translation.x, translation.y, translation.z, q.x, q.y, q.z, q.w]
    }

    /// The pose a VIEWPOINT line describes; nil unless it holds 7 finite numbers whose quaternion
    /// is not zero (it is normalized, as PCL's reader does).
    public init?(viewpoint v: [Double]) {
        guard v.count == 7 else { return nil }
        self.init(translation: SIMD3(v[0], v[1], v[2]), w: v[3], x: v[4], y: v[5], z: v[6])
    }
}
