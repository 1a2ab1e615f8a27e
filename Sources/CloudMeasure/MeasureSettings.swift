import CloudCore
import Foundation

/// How `cloudgen measure` looks at a cloud. The defaults suit rooms scanned by depth cameras and
/// phones; Docs/measure.md says why each value is what it is.
public struct MeasureSettings: Sendable {
    /// Voxel leaf (metres) of the working set the planes are fitted to. A centroid of points on a
    /// plane stays on it, so the leaf costs no accuracy; it makes point counts proportional to
    /// area and bounds the work on dense fused clouds.
    public var leaf: Double = 0.03
    /// Where up comes from: nil finds it in the data unless the source knows it.
    public var up: SIMD3<Double>?
    /// Bootstrap replicates behind every uncertainty.
    public var bootstrapRounds = 60
    /// Side (metres) of the blocks the bootstrap resamples: neighbouring points share errors
    /// (smoothing, one frame's pose), so a block, not a point, is an independent sample.
    public var bootstrapBlock = 0.5
    /// Seeds the bootstrap and the subsampling: the same input gives the same report.
    public var seed: UInt64 = 1

    public init() {}

    /// Refuses values that cannot work, in the words of the flags.
    public func check() throws {
        guard leaf.isFinite, leaf >= 0.005, leaf <= 0.2 else {
            throw CloudError.badInput(.option("leaf", "\(leaf)"), "must be between 0.005 and 0.2 metres")
        }
        if let up, !(up.x.isFinite && up.y.isFinite && up.z.isFinite) || (up * up).sum() < 1e-12 {
            throw CloudError.badInput(.option("up"), "not a direction")
        }
    }

    // Thresholds, in metres or square metres, all scaled from the leaf where they count points.

    /// The smallest horizontal patch taken as a plane (a floor seen past furniture is larger).
    var minHorizontalArea: Double { 0.25 }
    /// The smallest vertical patch taken as a plane.
    var minVerticalArea: Double { 0.2 }
    /// A floor or ceiling must cover at least this much.
    var minFloorArea: Double { 0.75 }
    /// RANSAC's first inlier distance; each plane then sets its own from its residuals.
    var startDistance: Double { max(0.02, leaf) }
    /// Bounds on a plane's own inlier distance (3 sigma of its residuals).
    var distanceRange: ClosedRange<Double> { 0.01...0.08 }
    /// A wall's: far walls are seen at 5-6 m, where a Kinect's depth noise is 4-5 cm; capped at
    /// 8 cm, RANSAC takes such a wall as two bands 10 cm apart and keeps the far one alone.
    var wallDistanceRange: ClosedRange<Double> { 0.01...0.15 }
    /// How far a floor's or ceiling's normal may lean from up, and a wall's from level.
    var horizontalAngle: Double { 5 * .pi / 180 }
    var verticalAngle: Double { 3 * .pi / 180 }
    /// Points the RANSAC hypotheses are scored on (the inliers are then taken from all points).
    var sampleSize: Int { 2_000 }
    /// The lowest ceiling above a floor: rooms are at least this tall, tables are lower.
    var minCeilingHeight: Double { 1.8 }
    /// A vertical plane whose top stays below this (above the floor) is furniture.
    var minWallTop: Double { 1.0 }
    /// With a ceiling seen, and a wall's top looked at, a wall reaches within this of it (a
    /// far wall's top is blurred by noise of several centimetres).
    var wallReachesCeiling: Double { 0.3 }
    /// How far a wall may run on unseen (hidden by furniture, out of view) to meet the next one.
    var maxCornerGap: Double { 1.5 }
    /// How far a wall's points may run on past its corner: its span's 10 cm columns and the
    /// noise at its end (in the independent sweeps most walls run on by under 0.4 m at both ends
    /// together; the confident wrong corners ran on by about a metre).
    var maxCornerOverrun: Double { 0.5 }

    func points(forArea area: Double) -> Int { max(30, Int(area / (leaf * leaf))) }
}
