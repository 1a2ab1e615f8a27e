import CloudCore
import CloudPCL
import Foundation

/// The 1-sigma uncertainty of every number from a block bootstrap over the planes' inliers: each
/// round redraws every plane's points, block by block with replacement, refits the planes with
/// PCL and recomputes the numbers; the spread of a number over the rounds is its sigma. Blocks
/// (squares of `settings.bootstrapBlock` on the plane) rather than points are drawn because
/// neighbouring points share their errors (depth smoothing, one frame's pose, a wavy wall), which
/// a point bootstrap would count as independent and so understate. A plane refitted on its
/// frames' points clear of the sensor's range limit (RangeLimitFit) is refitted so in each round,
/// on the clear points under the blocks drawn.
///
/// Errors shared by a whole plane (depth steps, smoothing, a wave in the surface) are invisible
/// to any resampling of its own points, so each round also shifts each plane by a normal draw
/// of a systematic share, added in quadrature to how far the frames that saw it disagree on
/// where it is (FrameSpread: drift).
/// - A wall's share is `sharedFraction` of the residual its neighbouring points share
///   (SharedResidual) and, in quadrature, `independentFraction` of its points' rms distance from
///   it: noise independent from point to point still leaves a little behind (it was calibrated
///   while a range limit still cut far walls' noise on one side; RangeLimitFit now refits them). Walls are seen farthest, where a depth camera's
///   noise is centimetres and, being independent per pixel, averages away: a share of the whole
///   rms made every Kinect wall's sigma three to five times its error. The independent fraction
///   was calibrated on the Kinect-like rooms another program made, the shared one on its phone
///   rooms (smoothed depth).
/// - A floor's or ceiling's share stays `levelFraction` of its rms, calibrated on the simulated
///   sweep: there the heights need it (with the wall's share 2 sigma covered 78 % of them), for
///   a reason not separated yet (Docs/measure.md, "Uncertainty").
struct Bootstrap {
    static let sharedFraction = 0.7
    static let levelFraction = 0.15
    static let independentFraction = 0.05

    let set: WorkingSet
    let settings: MeasureSettings

    /// Block index lists of a plane's inliers, blocks laid out in the plane.
    func blocks(of fitted: FittedPlane) -> [[UInt32]] {
        let axes = fitted.plane.inPlaneAxes
        var cells: [SIMD2<Int>: [UInt32]] = [:]
        for i in fitted.inliers {
            cells[Plane.square(of: set.points[Int(i)], axes: axes, size: settings.bootstrapBlock), default: []].append(i)
        }
        return cells.keys.sorted { ($0.x, $0.y) < ($1.x, $1.y) }.map { cells[$0]! }
    }

    /// The rounds' planes: `rounds` redraws of every plane in `planes`; `upright[k]`: plane k is a wall.
    func replicates(_ planes: [FittedPlane], upright: [Bool]) throws -> [[Plane]] {
        let blockLists = planes.map(blocks)
        let spreads = planes.map { p in
            let pose = PoseRefinement.PlaneTerm.sigma(of: p.plane, in: set.poseTerms)
            let frames = FrameSpread.of(p, set: set)
            return (frames * frames + pose * pose).squareRoot()
        }
        let systematic = zip(planes, upright).map { p, wall -> Double in
            guard wall else { return Self.levelFraction * p.rms }
            let (independent, shared) = (
                Self.independentFraction * p.rms, Self.sharedFraction * SharedResidual.of(p, set: set, leaf: settings.leaf)
            )
            return (independent * independent + shared * shared).squareRoot()
        }
        var random = SplitMix64(seed: settings.seed, stream: 0xB0075)
        var rounds: [[Plane]] = []
        for _ in 0..<settings.bootstrapRounds {
            var round: [Plane] = []
            for (k, fitted) in planes.enumerated() {
                let blocks = blockLists[k]
                var drawn: [UInt32] = []
                drawn.reserveCapacity(fitted.inliers.count)
                if blocks.count >= 4 {
                    for _ in blocks.indices { drawn += blocks[Int(random.next() % UInt64(blocks.count))] }
                } else {
                    // Too small for blocks: points.
                    for _ in fitted.inliers.indices { drawn.append(fitted.inliers[Int(random.next() % UInt64(fitted.inliers.count))]) }
                }
                var plane = fitted.plane
                if fitted.clearOfRange {
                    plane = RangeLimitFit.fit(drawn, like: fitted, set: set) ?? plane
                } else if drawn.count >= 4 {
                    plane = try set.fit(drawn, like: fitted.plane, coreCentred: fitted.coreCentred)
                }
                plane.offset += random.gaussian() * (systematic[k] * systematic[k] + spreads[k] * spreads[k]).squareRoot()
                round.append(plane)
            }
            rounds.append(round)
        }
        return rounds
    }

    /// Sample standard deviation; nil when fewer than half the rounds had the number.
    static func sigma(_ values: [Double?]) -> Double? {
        let seen = values.compactMap { $0 }
        guard seen.count >= 2, seen.count * 2 >= values.count else { return nil }
        let mean = seen.reduce(0, +) / Double(seen.count)
        return (seen.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(seen.count - 1)).squareRoot()
    }
}
