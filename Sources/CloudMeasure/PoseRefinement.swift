import CloudCore
import CloudPCL
import Foundation

/// Corrects the frames' poses on the planes they share. When a scan's odometry drifts, each
/// frame's copy of a wall, floor or ceiling lies a little off the others' (FrameSpread), and the
/// fused plane sits at their mean. Each frame's own points on the room's planes (FramePoints)
/// say where its pose puts each plane; a frame that saw two walls and the floor is held by all
/// three. The frames' rigid corrections and the planes are solved for together, by least
/// squares on the points' distances to their planes (Gauss-Newton on a 6-DOF update per frame,
/// rotation about its camera and translation, and a 3-DOF one per plane), so that a plane lies
/// where its frames, each held by its other planes and by the frames before and after it, agree
/// it is, not at the mean of copies that disagree.
///
/// Only what the planes observe is corrected: a frame that saw one plane is held along that
/// plane's normal alone; what no plane constrains (sliding along a wall, the room's placement as
/// a whole) is left to the priors, which keep it as recorded. Without drift nothing is moved
/// (the chi-square test in `corrections`). A frame's points of another surface filed under a
/// plane (its copy tilted against the plane) are left out, and so are frames that gave a plane
/// too few points to place it.
enum PoseRefinement {
    /// Gauss-Newton rounds; each re-gates the points on the planes as they moved. The first
    /// `firstRounds` hold each frame by its own prior alone; the corrections they find say how
    /// far a frame's pose drifts from the one before, and the rest tie each frame to the one
    /// before by that much (a tracker's drift is a walk: the frames that saw one wall and those
    /// that saw the opposite one are linked by the frames between them, not only by planes).
    static let rounds = 8
    static let firstRounds = 3

    /// The prior on a frame's whole correction in the first rounds, and on the first frame's
    /// after them: one sigma of its rotation (radians, 1°) and of its camera's move (metres),
    /// wider than a tracker drifts over a room's frames. It decides what the planes leave open
    /// (a frame that saw only walls is not moved up or down) and holds the room's placement.
    static let rotationPrior = 0.0175
    static let translationPrior = 0.02
    /// What a frame's copy of a plane cannot place it closer than, however many points it has:
    /// errors its points share (depth steps, smoothing, the surface's waviness, a cut at the
    /// range limit) do not average away. Half its points' scatter, and at least half a
    /// millimetre. Chosen on seed 2026's first drift room by comparing the corrected poses with
    /// the true ones: at 0.05 the frames' translations came out worse than recorded (the many
    /// points of one copy pulled its frame along directions the planes barely observe), at 0.5
    /// and 1.0 better (median 3.7 and 3.0 mm against 5.5 mm recorded, at the room's middle).
    static let sharedFraction = 0.5
    static let minShared = 0.0005
    /// A frame's copy of a plane tilted by more than this (radians) against it is another
    /// surface's: a drifted copy leans by the drift's rotation, a degree or so.
    static let maxTilt = 0.1
    /// Where a plane's points are looked for: this many times its inlier distance, so that a frame
    /// whose drift took its copy partly outside the plane's slab still gives all its points.
    static let searchWidth = 2.0
    /// A pair's most to the drift test's chi-square: a 3-sigma offset.
    static let maxPairChi = 9.0

    /// The drift's step a frame: the root mean square of the differences between consecutive
    /// frames' corrections (rotation over its three axes; translation along its largest axis,
    /// as a direction no plane observes keeps no correction). At least 0.01° and 0.5 mm.
    static func stepSizes(_ totals: [[Double]]) -> (rotation: Double, translation: Double) {
        guard totals.count > 1 else { return (rotationPrior, translationPrior) }
        var squares = [Double](repeating: 0, count: 6)
        for i in 1..<totals.count { for k in 0..<6 { squares[k] += pow(totals[i][k] - totals[i - 1][k], 2) } }
        let n = Double(totals.count - 1)
        let rotation = ((squares[0] + squares[1] + squares[2]) / (3 * n)).squareRoot()
        let translation = (squares[3...5].max()! / n).squareRoot()
        return (max(rotation, 0.01 * Double.pi / 180), max(translation, 0.0005))
    }

    /// The camera-to-cloud corrections (applied to a frame's points and its pose) by frame;
    /// nil when the scan does not say which frame a point came from or no plane was seen by two
    /// frames.
    static func corrections(_ scan: RoomScan, set: WorkingSet, surfaces: RoomSurfaces) -> Result? {
        guard let frames = set.framePoints else { return nil }
        let fitted = [surfaces.levels.floor, surfaces.levels.ceiling].compactMap { $0 } + surfaces.walls.map(\.fitted)
        guard fitted.count >= 2 else { return nil }
        // Everything relative to the cameras' mean: the moments stay well conditioned.
        let origin = surfaces.interior
        let pairs = Self.pairs(fitted, set: set, frames: frames, origin: origin)
        var planes = fitted.map {
            PlaneState(normal: $0.plane.normal, offset: $0.plane.offset + dot($0.plane.normal, origin), gate: $0.distance)
        }
        let centres = scan.cameras.map { $0.translation - origin }
        var moves = [Pose](repeating: .identity, count: scan.cameras.count)
        var system = NormalEquations(frames: moves.count, planes: planes.count)
        var information = SquareMatrix(size: 3 * planes.count)
        var steps: (rotation: Double, translation: Double)?
        for round in 0..<rounds {
            system.clear()
            for pair in pairs {
                let move = moves[pair.frame]
                let plane = planes[pair.plane]
                guard let moments = Moments(pair.points, move: move, plane: plane), moments.tilt < maxTilt else { continue }
                system.add(moments, frame: pair.frame, centre: move.apply(centres[pair.frame]), plane: pair.plane, state: plane)
            }
            // The whole correction so far, by frame: rotation vector (first order), the camera's move.
            let totals = moves.enumerated().map { i, move -> [Double] in
                let r = move.rotation
                let t = move.apply(centres[i]) - centres[i]
                return [(r.2.y - r.1.z) / 2, (r.0.z - r.2.x) / 2, (r.1.x - r.0.y) / 2, t.x, t.y, t.z]
            }
            if round == firstRounds {
                steps = Self.stepSizes(totals)
            }
            // Once the frames are tied to each other, only the first is held by its own prior: a
            // walk's errors grow from its start, and independent priors on every frame would
            // average the drift of a run of frames away, which a walk does not do.
            for (i, total) in totals.enumerated() where steps == nil || i == 0 {
                system.addPrior(frame: i, rotation: SIMD3(total[0], total[1], total[2]), translation: SIMD3(total[3], total[4], total[5]))
            }
            if let steps {
                for i in 1..<max(1, totals.count) {
                    system.addStep(
                        frame: i, difference: (0..<6).map { totals[i][$0] - totals[i - 1][$0] }, rotationStep: steps.rotation,
                        translationStep: steps.translation)
                }
            }
            // Without drift the frames' copies agree within their noise and shared error, and
            // nothing is moved: the poses are corrected only when the copies' offsets disagree
            // by more than a chi-square on that many pairs allows (3 sigma above its mean), each
            // pair counting at most a 3-sigma offset (`maxPairChi`). Uncapped, a few frames'
            // points of another surface (a Kinect wall's slab, a phone's mixed edge pixels)
            // set off two Kinect rooms and a phone room without drift, and moving their frames
            // made a phone wall 11.5 mm off that was 0.2 mm.
            if round == 0 {
                let n = Double(system.pairs)
                guard system.pairs > 0, system.cappedChi > n + 3 * (2 * n).squareRoot() else { return nil }
            }
            guard let (frameSteps, planeSteps, reduced) = system.solve() else { return nil }
            information = reduced
            for (i, step) in frameSteps.enumerated() {
                let centre = moves[i].apply(centres[i])
                let rows = rotationRows(step.rotation)
                let turn = Pose(rows: rows, translation: centre + step.translation - Pose(rows: rows, translation: .zero).apply(centre))
                moves[i] = turn.after(moves[i])
            }
            for (j, step) in planeSteps.enumerated() {
                let (u, v) = planes[j].axes
                planes[j].normal = normalize(planes[j].normal + step.x * u + step.y * v)
                planes[j].offset += step.z
            }
        }
        // Back to the cloud's frame: p -> move(p - origin) + origin.
        let corrections = moves.map { move in
            Pose(rows: move.rotation, translation: move.translation + origin - Pose(rows: move.rotation, translation: .zero).apply(origin))
        }
        let terms = Self.planeTerms(planes, pairs: pairs, moves: moves, information: information, origin: origin)
        return Result(corrections: corrections, planes: terms)
    }

    struct PlaneState {
        var normal: SIMD3<Double>
        var offset: Double
        /// A point farther than this from the plane is not on it (its own inlier distance).
        var gate: Double

        var axes: (SIMD3<Double>, SIMD3<Double>) { Plane(normal: normal, offset: offset).inPlaneAxes }
    }
}
