import CloudCore
import Foundation

/// A cloud cut down to a point budget and packed for a viewer: each position as three int16 in
/// units of `scale` metres from `origin`, each color as RGB8. A room of 10 m packs at 0.15 mm a
/// step, far below any depth camera's noise, in 9 bytes a point against 15 in a binary PLY.
public struct QuantisedCloud: Equatable, Sendable {
    /// The centre of the kept points' bounding box.
    public var origin: SIMD3<Float>
    /// Metres per int16 step: the box's largest half side over 32767, so every point fits.
    public var scale: Float
    /// x y z steps from `origin`, three per point.
    public var positions: [Int16]
    /// r g b, three per point; a cloud without color is packed light grey.
    public var colors: [UInt8]
    /// Finite points in the cloud before the budget took its share.
    public var total: Int

    public var count: Int { positions.count / 3 }

    /// The grey given to points of a cloud that has no color.
    public static let uncolored: UInt8 = 190

    /// Keeps at most `budget` of `cloud`'s finite points: of the n finite points in their order,
    /// point ⌊j·n/budget⌋ for j = 0 ..< budget (all of them when n ≤ budget). Evenly spread over
    /// the cloud's order, which follows the camera's rows frame by frame, and the same selection
    /// whoever repeats it (a test, another viewer).
    public init(_ cloud: PointCloud, budget: Int) {
        precondition(budget > 0, "a budget of at least one point")
        var finite: [Int] = []
        finite.reserveCapacity(cloud.count)
        cloud.positions.withUnsafeBufferPointer { p in
            for i in 0..<cloud.count where p[3 * i].isFinite && p[3 * i + 1].isFinite && p[3 * i + 2].isFinite {
                finite.append(i)
            }
        }
        let n = finite.count
        let kept = n <= budget ? finite : (0..<budget).map { finite[$0 * n / budget] }
        var low = SIMD3<Float>(repeating: .infinity)
        var high = SIMD3<Float>(repeating: -.infinity)
        for i in kept {
            let p = SIMD3(cloud.positions[3 * i], cloud.positions[3 * i + 1], cloud.positions[3 * i + 2])
            low = pointwiseMin(low, p)
            high = pointwiseMax(high, p)
        }
        origin = kept.isEmpty ? .zero : (low + high) / 2
        let halfSide = kept.isEmpty ? 0 : ((high - low) / 2).max()
        // A single point, or all points on one spot: any step will do.
        scale = halfSide > 0 ? halfSide / 32767 : 1e-6
        var positions = [Int16](repeating: 0, count: 3 * kept.count)
        var colors = [UInt8](repeating: Self.uncolored, count: 3 * kept.count)
        for (j, i) in kept.enumerated() {
            for axis in 0..<3 {
                let steps = ((cloud.positions[3 * i + axis] - origin[axis]) / scale).rounded()
                positions[3 * j + axis] = Int16(max(-32767, min(32767, steps)))
            }
            if let c = cloud.colors {
                colors[3 * j] = c[3 * i]
                colors[3 * j + 1] = c[3 * i + 1]
                colors[3 * j + 2] = c[3 * i + 2]
            }
        }
        self.positions = positions
        self.colors = colors
        total = n
    }

    /// Point `j`'s position in metres, as a viewer unpacks it.
    public func position(_ j: Int) -> SIMD3<Float> {
        origin + scale * SIMD3(Float(positions[3 * j]), Float(positions[3 * j + 1]), Float(positions[3 * j + 2]))
    }

    /// The two payloads of a cloud message: positions as little-endian int16, then colors.
    public var payloads: [Data] {
        #if _endian(big)
        let positions = positions.map { $0.littleEndian }
        #endif
        return [positions.withUnsafeBytes { Data($0) }, Data(colors)]
    }
}
