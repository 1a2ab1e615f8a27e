import CloudCore
import Foundation

/// What `cloudgen measure` is given: a cloud, where its cameras stood, and up when the source knows it.
public struct RoomScan {
    /// The file or source spec, for messages and the report.
    public var name: String
    public var cloud: PointCloud
    /// Camera-to-cloud pose of each frame (the identity for a camera-frame cloud); at least one.
    public var cameras: [Pose]
    /// Up (against gravity) in the cloud's frame, from the source (the simulated rooms' world
    /// frame); nil when only the data can tell.
    public var sourceUp: SIMD3<Double>?
    /// Where each camera's points begin in `cloud` (a fused cloud holds its frames' points one
    /// frame after another), in `cameras`' order; nil when the cloud does not say which frame a
    /// point came from (a file, a single frame). With it, each plane is fitted frame by frame to
    /// tell how far the frames disagree on it (FrameSpread).
    public var frameStarts: [Int]?

    public init(
        name: String, cloud: PointCloud, cameras: [Pose], sourceUp: SIMD3<Double>? = nil, frameStarts: [Int]? = nil
    ) {
        self.name = name
        self.cloud = cloud
        self.cameras = cameras.isEmpty ? [.identity] : cameras
        self.sourceUp = sourceUp
        // Starts that do not fit the cloud and its cameras say nothing.
        let fits =
            frameStarts.map { starts in
                starts.count == self.cameras.count && starts.first == 0 && zip(starts, starts.dropFirst()).allSatisfy { $0 <= $1 }
                    && starts.last! <= cloud.count
            } ?? false
        self.frameStarts = fits ? frameStarts : nil
    }

    /// Camera positions in the cloud's frame.
    var cameraPositions: [SIMD3<Double>] { cameras.map(\.translation) }

    /// The first camera's up (its -y axis) in the cloud's frame: which way "level" leans when the
    /// data must say where up is. A camera is held roughly upright.
    var cameraUp: SIMD3<Double> {
        let first = cameras[0]
        return first.apply(SIMD3(0, -1, 0)) - first.translation
    }
}

extension RoomScan {
    /// The scan with each frame's points and camera moved by its correction (camera-to-cloud,
    /// applied after the frame's pose), by frame in `cameras`' order. Needs `frameStarts`.
    func moved(by corrections: [Pose]) -> RoomScan {
        guard let starts = frameStarts, corrections.count == cameras.count else { return self }
        var moved = self
        moved.cameras = zip(corrections, cameras).map { $0.after($1) }
        let ends = Array(starts.dropFirst()) + [cloud.count]
        moved.cloud.positions.withUnsafeMutableBufferPointer { p in
            for (frame, (first, end)) in zip(starts, ends).enumerated() {
                let move = corrections[frame]
                for i in first..<end {
                    let w = move.apply(SIMD3(Double(p[3 * i]), Double(p[3 * i + 1]), Double(p[3 * i + 2])))
                    p[3 * i] = Float(w.x)
                    p[3 * i + 1] = Float(w.y)
                    p[3 * i + 2] = Float(w.z)
                }
            }
        }
        return moved
    }
}
