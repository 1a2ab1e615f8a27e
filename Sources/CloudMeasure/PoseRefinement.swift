import CloudCore
import CloudPCL
import Foundation

/// Corrects the frames' poses on the planes they share. When a scan's odometry drifts, each
/// frame's copy of a wall, floor or ceiling lies a little off the others' (FrameSpread), and the
/// fused plane sits at their mean. Each frame's own points on the room's planes (FramePoints)
/// say where its pose puts each plane; a frame that saw two walls and the floor is held by all
/// three. The frames' rigid corrections and the planes are solved for together, by least
/// squares on the points' distances to their planes (Gauss-Newton on a 6-DOF update per frame
/// and a 3-DOF one per plane), so that a plane's position is where all its frames, each held by
/// its other planes, agree it is — not the mean of copies that disagree.
///
/// Only what the planes observe is corrected: a frame that saw one plane is held along that
/// plane's normal alone, and every update is damped toward no change, so a direction no plane
/// constrains (sliding along a wall, the whole room's placement) stays as the scan recorded it.
/// A frame's points of another surface filed under a plane (its copy tilted against the plane)
/// are left out, and so are frames that gave a plane too few points to place it.
enum PoseRefinement {
    /// Gauss-Newton rounds; each re-gates the points on the planes as they moved. The first
    /// `firstRounds` hold each frame by its own prior alone; the corrections they find say how
    /// far a frame's pose drifts from the one before, and the rest tie each frame to the one
    /// before by that much (a tracker's drift is a walk: the frames that saw one wall and those
    /// that saw the opposite one are linked by the frames between them, not only by planes).
    static let rounds = 8
    static let firstRounds = 3

    /// The drift's step a frame: the root mean square of the differences between consecutive
    /// frames' corrections (rotation over its three axes; translation along its largest axis,
    /// as a direction no plane observes keeps no correction). At least 0.01° and 0.5 mm.
    static func stepSizes(_ totals: [[Double]]) -> (rotation: Double, translation: Double) {
        guard totals.count > 1 else { return (0.0175, 0.02) }
        var squares = [Double](repeating: 0, count: 6)
        for i in 1..<totals.count { for k in 0..<6 { squares[k] += pow(totals[i][k] - totals[i - 1][k], 2) } }
        let n = Double(totals.count - 1)
        let rotation = ((squares[0] + squares[1] + squares[2]) / (3 * n)).squareRoot()
        let translation = (squares[3...5].max()! / n).squareRoot()
        return (max(rotation, 0.01 * Double.pi / 180), max(translation, 0.0005))
    }
    /// The prior on a frame's whole correction: one sigma of its rotation (radians, 1°) and of its
    /// camera's move (metres), wider than odometry drifts over a room's frames. It decides what
    /// the planes leave open (a frame that saw only walls is not moved up or down) and holds the
    /// room's placement as a whole, which no plane observes.
    static let rotationPrior = Double(ProcessInfo.processInfo.environment["PR_rotationPrior"] ?? "") ?? 0.0175
    static let translationPrior = Double(ProcessInfo.processInfo.environment["PR_translationPrior"] ?? "") ?? 0.02
    /// What a frame's copy of a plane cannot place it closer than, however many points it has:
    /// errors its points share (depth steps, smoothing, the surface's own waviness) do not
    /// average away. A fraction of its points' scatter (the walls' systematic share in
    /// "Uncertainty", 0.05 of the rms), and at least half a millimetre.
    static let sharedFraction = Double(ProcessInfo.processInfo.environment["PR_sharedFraction"] ?? "") ?? 0.5
    static let minShared = Double(ProcessInfo.processInfo.environment["PR_minShared"] ?? "") ?? 0.0005
    /// A frame's copy of a plane tilted by more than this against it is another surface's.
    static let termScale = Double(ProcessInfo.processInfo.environment["PR_termScale"] ?? "") ?? 0.4
    static let maxTilt = Double(ProcessInfo.processInfo.environment["PR_maxTilt"] ?? "") ?? 0.1

    /// Where a plane's points are looked for: this many times its inlier distance, so that a frame
    /// whose drift took its copy partly outside the plane's slab still gives all its points.
    static let searchWidth = Double(ProcessInfo.processInfo.environment["PR_searchWidth"] ?? "") ?? 2.0

    /// The camera-to-cloud corrections (applied to a frame's points and its pose) by frame;
    /// nil when the scan does not say which frame a point came from or no plane was seen by two
    /// frames.
    static func corrections(_ scan: RoomScan, set: WorkingSet, surfaces: RoomSurfaces) -> Result? {
        guard let frames = set.framePoints else { return nil }
        let fitted = [surfaces.levels.floor, surfaces.levels.ceiling].compactMap { $0 } + surfaces.walls.map(\.fitted)
        guard fitted.count >= 2 else { return nil }
        // Everything relative to the cameras' mean: the moments stay well conditioned.
        let origin = surfaces.interior
        var pairs: [Pair] = []
        // A working point on one of the planes is looked for on no other (a corner's points).
        var owner = [Int](repeating: -1, count: set.count)
        for (j, plane) in fitted.enumerated() { for i in plane.inliers where owner[Int(i)] < 0 { owner[Int(i)] = j } }
        for (j, plane) in fitted.enumerated() {
            var byFrame = [[SIMD3<Float>]](repeating: [], count: frames.frameCount)
            let width = searchWidth * plane.distance
            for (w, p) in set.points.enumerated()
            where (owner[w] < 0 || owner[w] == j) && abs(plane.plane.distance(p)) < width && set.faces(w, plane.plane.normal) {
                for k in frames.indices(of: UInt32(w)) where frames.isClear(k, of: plane) {
                    byFrame[Int(frames.frames[k])].append(SIMD3<Float>(SIMD3<Double>(frames.positions[k]) - origin))
                }
            }
            for (i, points) in byFrame.enumerated() where points.count >= FrameSpread.minPoints {
                pairs.append(Pair(frame: i, plane: j, points: points))
            }
        }
        var planes = fitted.map { PlaneState(normal: $0.plane.normal, offset: $0.plane.offset + dot($0.plane.normal, origin), gate: $0.distance) }
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
            if ProcessInfo.processInfo.environment["CLOUDGEN_POSE_LOG"] != nil {
                FileHandle.standardError.write("round: \(system.pairs) pairs of \(pairs.count), cost \(system.cost) chi \(system.offsetChi) steps \(String(describing: steps))\n".data(using: .utf8)!)
            }
            // Without drift the frames' copies agree within their noise and shared error, and
            // nothing is moved: the poses are corrected only when the copies' offsets disagree
            // by more than a chi-square on that many pairs allows (3 sigma above its mean).
            if round == 0 {
                let n = Double(system.pairs)
                guard system.pairs > 0, system.offsetChi > n + 3 * (2 * n).squareRoot() else { return nil }
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
        if ProcessInfo.processInfo.environment["CLOUDGEN_POSE_LOG"] != nil {
            for pair in pairs {
                let m = Moments(pair.points, move: moves[pair.frame], plane: planes[pair.plane])
                let before = Moments(pair.points, move: .identity, plane: planes[pair.plane])
                func offset(_ m: Moments?, _ move: Pose) -> Double {
                    guard let m else { return .nan }
                    let n = Double(m.count)
                    return (dot(planes[pair.plane].normal, SIMD3(m.sums[3], m.sums[7], m.sums[11]) / n) + planes[pair.plane].offset) * 1000
                }
                FileHandle.standardError.write(String(format: "pair f%d p%d n=%d normal=(%.2f %.2f %.2f) sigma=%.1fmm tilt=%.3f offset before %.1f after %.1f mm\n", pair.frame, pair.plane, pair.points.count, planes[pair.plane].normal.x, planes[pair.plane].normal.y, planes[pair.plane].normal.z, (m?.variance ?? 0).squareRoot() * 1000, m?.tilt ?? -1, offset(before, .identity), offset(m, moves[pair.frame])).data(using: .utf8)!)
            }
            for (i, m) in moves.enumerated() {
                let t = m.apply(centres[i]) - centres[i]
                FileHandle.standardError.write(String(format: "f%d centre moved (%.1f %.1f %.1f) mm\n", i, t.x * 1000, t.y * 1000, t.z * 1000).data(using: .utf8)!)
            }
        }
        // Back to the cloud's frame: p -> move(p - origin) + origin.
        let corrections = moves.map { move in
            Pose(rows: move.rotation, translation: move.translation + origin - Pose(rows: move.rotation, translation: .zero).apply(origin))
        }
        // How well the frames, as corrected, place each plane: its offset's posterior sigma at
        // the middle of its points, from the planes' block of the last round's normal equations
        // (the frames eliminated).
        // The room's placement as a whole (a rigid motion of every frame and plane together)
        // is held by the frames' prior alone: it moves no plane against another and is no
        // uncertainty of any number. It is pinned before inverting, so that each plane's sigma
        // is its uncertainty against the others.
        var pinned = information
        let scale = 1e4 * (0..<pinned.size).map { pinned[$0, $0] }.max()!
        for k in 0..<6 {
            var g = [Double](repeating: 0, count: pinned.size)
            for (j, plane) in planes.enumerated() {
                let (u, v) = plane.axes
                let e = SIMD3<Double>((0..<3).map { $0 == k % 3 ? 1 : 0 })
                if k < 3 {
                    g[3 * j] = dot(u, cross(e, plane.normal))
                    g[3 * j + 1] = dot(v, cross(e, plane.normal))
                } else {
                    g[3 * j + 2] = -dot(plane.normal, e)
                }
            }
            for a in 0..<pinned.size { for b in 0..<pinned.size { pinned[a, b] += scale * g[a] * g[b] } }
        }
        guard let covariance = pinned.inverse() else { return nil }
        var terms: [PlaneTerm] = []
        for (j, plane) in planes.enumerated() {
            var sum = SIMD3<Double>.zero
            var count = 0
            for pair in pairs where pair.plane == j {
                for p in pair.points {
                    sum += moves[pair.frame].apply(SIMD3<Double>(p))
                    count += 1
                }
            }
            guard count > 0 else { continue }
            let middle = sum / Double(count)
            let (u, v) = plane.axes
            let jacobian = [dot(u, middle), dot(v, middle), 1]
            var variance = 0.0
            for a in 0..<3 { for b in 0..<3 { variance += jacobian[a] * covariance[3 * j + a, 3 * j + b] * jacobian[b] } }
            terms.append(
                PlaneTerm(plane: Plane(normal: plane.normal, offset: plane.offset - dot(plane.normal, origin)), sigma: termScale * max(0, variance).squareRoot()))
        }
        if ProcessInfo.processInfo.environment["CLOUDGEN_POSE_LOG"] != nil {
            for t in terms { FileHandle.standardError.write("plane term \(t.plane.normal) \(t.plane.offset): sigma \(t.sigma * 1000) mm\n".data(using: .utf8)!) }
        }
        return Result(corrections: corrections, planes: terms)
    }

    struct Result {
        /// Camera-to-cloud corrections by frame (applied after each frame's pose).
        var corrections: [Pose]
        /// Each plane as the corrected frames place it, with its offset's sigma.
        var planes: [PlaneTerm]
    }

    /// How well the corrected poses place a plane: the part of its uncertainty the poses leave,
    /// which resampling the corrected points cannot show (they now agree by construction).
    struct PlaneTerm {
        var plane: Plane
        var sigma: Double

        /// The term for a plane found again in the corrected cloud: the one it matches (normals
        /// within 5°, offsets within 5 cm), or 0.
        static func sigma(of plane: Plane, in terms: [PlaneTerm]) -> Double {
            for term in terms {
                let cosine = dot(term.plane.normal, plane.normal)
                guard abs(cosine) > cos(5 * Double.pi / 180) else { continue }
                let offset = cosine > 0 ? term.plane.offset : -term.plane.offset
                if abs(offset - plane.offset) < 0.05 { return term.sigma }
            }
            return 0
        }
    }

    struct Pair {
        var frame: Int
        var plane: Int
        /// The frame's points near the plane, relative to the cameras' mean.
        var points: [SIMD3<Float>]
    }

    struct PlaneState {
        var normal: SIMD3<Double>
        var offset: Double
        /// A point farther than this from the plane is not on it (its own inlier distance).
        var gate: Double

        var axes: (SIMD3<Double>, SIMD3<Double>) { Plane(normal: normal, offset: offset).inPlaneAxes }
    }
}

extension PoseRefinement {
    /// Temporary: prints each frame's correction when CLOUDGEN_POSE_LOG is set.
    static func log(_ corrections: [Pose], scan: RoomScan) {
        guard ProcessInfo.processInfo.environment["CLOUDGEN_POSE_LOG"] != nil else { return }
        for (i, (c, pose)) in zip(corrections, scan.cameras).enumerated() {
            let r = c.rotation
            let angle = acos(max(-1, min(1, (r.0.x + r.1.y + r.2.z - 1) / 2))) * 180 / .pi
            let moved = c.apply(pose.translation) - pose.translation
            let m = c.after(pose)
            let rows = [m.rotation.0, m.rotation.1, m.rotation.2].map { "\($0.x) \($0.y) \($0.z)" }.joined(separator: " ")
            FileHandle.standardError.write("posefix \(i) \(rows) \(m.translation.x) \(m.translation.y) \(m.translation.z)\n".data(using: .utf8)!)
            FileHandle.standardError.write(
                String(format: "frame %d: %.3f deg, camera moved %.1f mm\n", i, angle, (moved * moved).sum().squareRoot() * 1000).data(using: .utf8)!)
        }
    }
}
