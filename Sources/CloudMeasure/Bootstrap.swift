import Foundation
import CloudCore
import CloudPCL

/// The 1-sigma uncertainty of every number from a block bootstrap over the planes' inliers: each
/// round redraws every plane's points, block by block with replacement, refits the planes with
/// PCL and recomputes the numbers; the spread of a number over the rounds is its sigma. Blocks
/// (squares of `settings.bootstrapBlock` on the plane) rather than points are drawn because
/// neighbouring points share their errors (depth smoothing, one frame's pose, a wavy wall), which
/// a point bootstrap would count as independent and so understate.
///
/// Errors shared by a whole plane (depth steps, a noise that grows with range, smoothing) are
/// invisible to any resampling of its own points, so each round also shifts each plane by a
/// normal draw of `systematicFraction` times its points' rms distance from it and, added in
/// quadrature, of how far the frames that saw it disagree on where it is (FrameSpread: drift).
/// The fraction was calibrated on the seeded sweep of simulated rooms (Docs/measure.md,
/// "Uncertainty"), where it brings 2 sigma over the true error of at least 95 % of heights,
/// walls and areas.
struct Bootstrap {
    static let systematicFraction = 0.15

    let set: WorkingSet
    let settings: MeasureSettings
    /// The frames, to tell how far they disagree on each plane (FrameSpread).
    let cameras: [CameraView]

    /// Block index lists of a plane's inliers, blocks laid out in the plane.
    func blocks(of fitted: FittedPlane) -> [[UInt32]] {
        let (u, v) = fitted.plane.inPlaneAxes
        var cells: [SIMD2<Int>: [UInt32]] = [:]
        for i in fitted.inliers {
            let p = set.points[Int(i)]
            let key = SIMD2(Int((dot(p, u) / settings.bootstrapBlock).rounded(.down)), Int((dot(p, v) / settings.bootstrapBlock).rounded(.down)))
            cells[key, default: []].append(i)
        }
        return cells.keys.sorted { ($0.x, $0.y) < ($1.x, $1.y) }.map { cells[$0]! }
    }

    /// The rounds' planes: `rounds` redraws of every plane in `planes`.
    func replicates(_ planes: [FittedPlane]) throws -> [[Plane]] {
        let blockLists = planes.map(blocks)
        let spreads = planes.map { FrameSpread.of($0, set: set, cameras: cameras) }
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
                var plane = drawn.count >= 4 ? try set.fit(drawn, like: fitted.plane, coreCentred: fitted.coreCentred) : fitted.plane
                let shared = Self.systematicFraction * fitted.rms
                plane.offset += random.gaussian() * (shared * shared + spreads[k] * spreads[k]).squareRoot()
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
