/// The one rule every reader of a camera pose applies: a pose a file gives must place
/// its frame's points somewhere a cloud can hold them. A translation of 1e308 is a finite Double,
/// but the frame's points become infinite in Float32 and vanish from the cloud without a word,
/// and the file's VIEWPOINT would repeat it; so each reader refuses it, naming the file and frame.
extension Pose {
    /// The farthest a camera may stand from its world's origin along any axis, in metres (100 km:
    /// beyond any room, building or site a depth camera scans; Float32 coordinates there still
    /// resolve 8 mm). Anything farther is a broken file, not a capture.
    public static let maxTranslation = 1e5

    /// Why this pose cannot be a camera's, in words a reader puts after the file and frame it
    /// names; nil when it can: each coordinate of the translation a number within
    /// ±`maxTranslation` metres (so finite in Float32 too), and the rotation a rotation
    /// (`isRigid`: finite, no scale, shear or mirroring).
    public var placementProblem: String? {
        let t = translation
        guard [t.x, t.y, t.z].allSatisfy({ abs($0) <= Self.maxTranslation }) else {
            return
                "the translation (\(t.x), \(t.y), \(t.z)) is not within ±\(Int(Self.maxTranslation)) m of the origin along each axis (a camera's position, in metres)"
        }
        guard isRigid() else {
            return "the rotation is not a rotation (a camera pose is rigid: no scale, shear or mirroring)"
        }
        return nil
    }
}
