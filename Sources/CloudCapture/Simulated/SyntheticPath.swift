import CloudCore
import Foundation

/// How the simulated camera moves over a sequence (`path=` with `frames=N`).
public enum SyntheticPath: String, CaseIterable, Sendable {
    /// A full turn on a circle around the room's centre, looking across the centre at the far
    /// side: every wall comes into view, as when scanning a room by walking around its middle.
    case orbit
    /// A straight walk from the near side toward the far corner, looking at it: the usual
    /// handheld approach, with the view changing scale rather than direction.
    case walk

    /// Camera-to-room poses of `count` frames in `scene`.
    func poses(count: Int, scene: SyntheticScene) -> [Pose] {
        let size = scene.size
        let height = scene.eye.z
        switch self {
        case .orbit:
            let centre = SIMD3(size.x / 2, size.y / 2, height)
            let radius = 0.3 * Swift.min(size.x, size.y)
            // Start where the single-frame camera stands, so frame 0 shows the familiar corner.
            let start = atan2(scene.eye.y - centre.y, scene.eye.x - centre.x)
            return (0..<count).map { i in
                let angle = start + 2 * Double.pi * Double(i) / Double(count)
                let offset = SIMD3(cos(angle), sin(angle), 0) * radius
                var target = centre - offset * 2
                target.z = scene.target.z
                return Pose.lookAt(eye: centre + offset, target: target)
            }
        case .walk:
            let start = SIMD3(0.25 * size.x, 0.25 * size.y, height)
            let end = SIMD3(0.55 * size.x, 0.5 * size.y, height)
            return (0..<count).map { i in
                let t = count == 1 ? 0 : Double(i) / Double(count - 1)
                return Pose.lookAt(eye: start + (end - start) * t, target: scene.target)
            }
        }
    }
}
