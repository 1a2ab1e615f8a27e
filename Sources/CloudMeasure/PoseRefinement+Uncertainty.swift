import CloudCore
import CloudPCL
import Foundation

extension PoseRefinement {
    /// The posterior sigma of each plane's offset is scaled by this. The shared error a pair is
    /// given (`sharedFraction`) is chosen for the estimate, and as a noise model it is wide: on
    /// seed 2026's drift rooms the unscaled sigmas were two to four times the errors (median
    /// height sigma 12.7 mm for a median error of 2.8 mm). Calibrated there, as the other
    /// fractions of "Uncertainty" were, and checked on seed 7's walk.
    static let termScale = 0.4

    /// How well the frames, as corrected, place each plane: its offset's posterior sigma at the
    /// middle of its points, from the planes' block of the last round's normal equations (the
    /// frames eliminated). `planes` relative to `origin`; the terms in the cloud's frame.
    static func planeTerms(
        _ planes: [PlaneState], pairs: [Pair], moves: [Pose], information: SquareMatrix, origin: SIMD3<Double>
    ) -> [PlaneTerm] {
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
        guard let covariance = pinned.inverse() else { return [] }
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
                PlaneTerm(
                    plane: Plane(normal: plane.normal, offset: plane.offset - dot(plane.normal, origin)),
                    sigma: termScale * max(0, variance).squareRoot()))
        }
        return terms
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

}
