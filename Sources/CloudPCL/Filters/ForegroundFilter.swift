import CloudCore

/// Where the camera was and where it looked, in the cloud's coordinates: what "depth" means to the
/// foreground cut. The camera frame's is the origin looking along +z.
public struct Viewpoint: Equatable, Sendable {
    public var origin: SIMD3<Float>
    /// Unit vector along the optical axis.
    public var axis: SIMD3<Float>

    public init(origin: SIMD3<Float>, axis: SIMD3<Float>) {
        self.origin = origin
        self.axis = axis
    }

    public static let camera = Viewpoint(origin: .zero, axis: SIMD3(0, 0, 1))

    /// The camera of a camera-to-world pose, in world coordinates.
    public init(pose: Pose) {
        let forward = SIMD3(pose.rotation.0.z, pose.rotation.1.z, pose.rotation.2.z)
        self.init(origin: SIMD3<Float>(pose.translation), axis: SIMD3<Float>(forward))
    }
}

/// The foreground cut, the point-cloud form of depth-threshold background removal: keep the
/// connected surface nearest to the camera and drop what lies behind a depth gap.
///
/// On the organized grid, two 4-neighbouring pixels belong to one surface when their depths
/// (along the optical axis) differ by less than `max(minimumGap, relativeGap * nearer depth)`:
/// 3 cm, or 3% of the depth beyond 1 m, which a surface seen even at a grazing angle stays within
/// between neighbouring pixels while a person standing in front of a wall does not. The kept
/// surface is the connected region whose nearest point is nearest to the camera, among regions of
/// at least `minimumShare` of the valid pixels, so that a few stray pixels (flying pixels at depth
/// edges, dust) in front of everything do not become "the foreground".
public enum ForegroundRule {
    public static let minimumGap: Float = 0.03
    public static let relativeGap: Float = 0.03
    public static let minimumShare = 0.005

    /// One byte per point of the organized `cloud` (1 kept) and the number kept.
    static func mask(_ cloud: PointCloud, grid: PointCloud.Grid, viewpoint: Viewpoint) -> (keep: [UInt8], kept: Int) {
        let w = grid.width
        let n = w * grid.height
        // Depth along the axis, NaN where there is no point (or it lies behind the camera).
        var depth = [Float](repeating: .nan, count: n)
        var valid = 0
        cloud.positions.withUnsafeBufferPointer { p in
            depth.withUnsafeMutableBufferPointer { d in
                for i in 0..<n {
                    let v = SIMD3(p[3 * i], p[3 * i + 1], p[3 * i + 2])
                    guard v.x.isFinite, v.y.isFinite, v.z.isFinite else { continue }
                    let z = ((v - viewpoint.origin) * viewpoint.axis).sum()
                    if z > 0 {
                        d[i] = z
                        valid += 1
                    }
                }
            }
        }
        var label = [Int32](repeating: -1, count: n)
        var best: (label: Int32, nearest: Float)?
        var nearestSpeck: (label: Int32, nearest: Float)?
        let minimumSize = max(1, Int((Double(valid) * minimumShare).rounded(.up)))
        depth.withUnsafeBufferPointer { d in
            label.withUnsafeMutableBufferPointer { l in
                var stack = [Int32]()
                var next: Int32 = 0
                for seed in 0..<n where l[seed] < 0 && !d[seed].isNaN {
                    // Region grow over the 4-neighbours whose depth is within the gap.
                    l[seed] = next
                    stack.append(Int32(seed))
                    var size = 0
                    var nearest = Float.infinity
                    while let top = stack.popLast() {
                        let i = Int(top)
                        let z = d[i]
                        size += 1
                        nearest = min(nearest, z)
                        func visit(_ j: Int) {
                            let zj = d[j]
                            guard l[j] < 0, !zj.isNaN, abs(z - zj) < max(minimumGap, relativeGap * min(z, zj)) else { return }
                            l[j] = next
                            stack.append(Int32(j))
                        }
                        let u = i % w
                        if u > 0 { visit(i - 1) }
                        if u + 1 < w { visit(i + 1) }
                        if i >= w { visit(i - w) }
                        if i + w < n { visit(i + w) }
                    }
                    if size >= minimumSize {
                        if best.map({ nearest < $0.nearest }) ?? true { best = (next, nearest) }
                    } else if nearestSpeck.map({ nearest < $0.nearest }) ?? true {
                        nearestSpeck = (next, nearest)
                    }
                    next += 1
                }
            }
        }
        // Only specks (a cloud of scattered pixels): the nearest of them.
        guard let chosen = best?.label ?? nearestSpeck?.label else { return ([UInt8](repeating: 0, count: n), 0) }
        var kept = 0
        let keep = label.map { l -> UInt8 in
            if l == chosen {
                kept += 1
                return 1
            }
            return 0
        }
        return (keep, kept)
    }
}

/// The connected surface nearest to the camera (`ForegroundRule`); needs an organized cloud.
extension FilterKind {
    public static let foreground = FilterKind(
        name: "foreground", form: nil, defaultValue: nil,
        summary: "Keep the connected surface nearest to the camera; drop what lies behind a depth gap (Docs/cli.md has the rule).",
        grid: .needs, listed: true, flagged: true,
        parse: { numbers, bad in
            guard numbers.isEmpty else { throw bad("takes no value (it is on when given)") }
            return []
        },
        problem: { _ in nil },
        parameters: { _ in ["minimumGap": .number(ForegroundRule.minimumGap), "relativeGap": .number(ForegroundRule.relativeGap)] },
        nanosecondsPerPoint: { _ in 40 }, bytesPerPoint: { _, _ in 8 },
        run: { _, input in
            guard let grid = input.cloud.organized else {
                throw CloudError.badInput(
                    .option(input.option), "needs an organized cloud (a width x height depth grid), and this one is a plain list of points")
            }
            let (keep, kept) = ForegroundRule.mask(input.cloud, grid: grid, viewpoint: input.viewpoint)
            return (CloudFilter.select(input.cloud, keep: keep, kept: kept, keepGrid: input.keepGrid), kept)
        })
}

extension CloudFilter {
    public static let foreground = CloudFilter(.foreground, [])
}
