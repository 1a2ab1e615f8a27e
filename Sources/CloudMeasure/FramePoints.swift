import CloudCore
import CloudPCL
import Foundation

/// The scan's own points, each with the frame it came from, filed under the working set's point
/// whose voxel-grid leaf holds it. The voxel grid averages every frame's points in a leaf into
/// one, which hides how far the frames disagree; these keep each frame's copy of a surface apart,
/// so that a plane can be fitted frame by frame (FrameSpread).
struct FramePoints {
    /// Points, grouped by working-set point: those of working point i are `start[i]..<start[i + 1]`.
    let positions: [SIMD3<Float>]
    let frames: [UInt16]
    let start: [Int32]
    /// Where each frame was taken from, by frame index.
    let cameras: [CameraView]
    /// The largest depth along its camera's axis of any point kept: past the sensor's range limit
    /// nothing is kept, so near a limit this is the limit (RangeLimitFit).
    let maxDepth: Double

    /// At most this many points are kept, an even share of each frame's (every k-th): a frame's
    /// copy of a plane still has thousands of them.
    static let maxPoints = 2_000_000

    /// nil when the scan does not say which frame its points came from.
    init?(_ scan: RoomScan, working: [SIMD3<Double>], leaf: Double) {
        guard let frameStarts = scan.frameStarts, frameStarts.count > 1, frameStarts.count <= Int(UInt16.max) else { return nil }
        // The voxel grid puts a point in the leaf floor(p / leaf), and a leaf's centroid lies in
        // that leaf: each working point names its leaf.
        let inverse = Float(1 / leaf)
        func key(_ p: SIMD3<Float>) -> SIMD3<Int32> {
            SIMD3(Int32((p.x * inverse).rounded(.down)), Int32((p.y * inverse).rounded(.down)), Int32((p.z * inverse).rounded(.down)))
        }
        var leaves: [SIMD3<Int32>: Int32] = [:]
        leaves.reserveCapacity(working.count)
        for (i, p) in working.enumerated() { leaves[key(SIMD3<Float>(p))] = Int32(i) }
        let cloud = scan.cloud
        let step = max(1, cloud.count / Self.maxPoints)
        let cameras = scan.cameras.map(CameraView.init)
        var owner: [Int32] = []
        var found: [(SIMD3<Float>, UInt16)] = []
        var maxDepth = 0.0
        let ends = Array(frameStarts.dropFirst()) + [cloud.count]
        cloud.positions.withUnsafeBufferPointer { xyz in
            for (frame, (first, end)) in zip(frameStarts, ends).enumerated() {
                let camera = cameras[frame]
                for i in stride(from: first, to: end, by: step) {
                    let p = SIMD3(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2])
                    guard p.x.isFinite && p.y.isFinite && p.z.isFinite else { continue }
                    maxDepth = max(maxDepth, dot(SIMD3<Double>(p) - camera.position, camera.forward))
                    guard let w = leaves[key(p)] else { continue }
                    owner.append(w)
                    found.append((p, UInt16(frame)))
                }
            }
        }
        // Filed by working point (a counting sort).
        var start = [Int32](repeating: 0, count: working.count + 1)
        for w in owner { start[Int(w) + 1] += 1 }
        for i in 0..<working.count { start[i + 1] += start[i] }
        var next = start
        var positions = [SIMD3<Float>](repeating: .zero, count: owner.count)
        var frames = [UInt16](repeating: 0, count: owner.count)
        for (k, w) in owner.enumerated() {
            let slot = Int(next[Int(w)])
            next[Int(w)] += 1
            (positions[slot], frames[slot]) = found[k]
        }
        self.positions = positions
        self.frames = frames
        self.start = start
        self.cameras = cameras
        self.maxDepth = maxDepth
    }

    var frameCount: Int { cameras.count }

    /// The points filed under working point `i`.
    func indices(of i: UInt32) -> Range<Int> { Int(start[Int(i)])..<Int(start[Int(i) + 1]) }

    /// Whether point k's ray meets the plane clear of the range limit: where the surface lies
    /// along the ray, not where the noise put the point, so that keeping only such points keeps
    /// their noise whole on both sides (RangeLimitFit). A point's noise along its ray is the
    /// plane's (a third of its inlier distance) over the cosine between ray and normal; three of
    /// those, measured along the camera's axis, is the margin.
    func isClear(_ k: Int, of fitted: FittedPlane) -> Bool {
        let plane = fitted.plane
        let camera = cameras[Int(frames[k])]
        let ray = normalize(SIMD3<Double>(positions[k]) - camera.position)
        let cosine = dot(plane.normal, ray)
        guard abs(cosine) > 0.05 else { return false }
        let axial = dot(ray, camera.forward)
        // Where the ray meets the plane, as depth along the camera's axis.
        let depth = -plane.distance(camera.position) / cosine * axial
        return depth + fitted.distance / abs(cosine) * axial < maxDepth
    }
}
