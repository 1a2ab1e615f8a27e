import CloudCore
import Foundation

/// How the simulated camera moves over a sequence (`path=` with `frames=N`).
public enum SyntheticPath: String, CaseIterable, Sendable {
    /// A full turn on a circle around the room's centre, looking across the centre at the far
    /// side: every wall comes into view, as when scanning a room by walking around its middle.
    /// In an L room the circle stays in the free part, around the middle of its wide corner.
    case orbit
    /// A straight walk from the near side toward the far corner, looking at it: the usual
    /// handheld approach, with the view changing scale rather than direction. It keeps west of
    /// the L room's notch (x <= 0.55 W).
    case walk
    /// The orbit, with the view tilted down, level and up in turn (frame i looks at the floor,
    /// the walls' middle or the ceiling's edge as i % 3 is 0, 1 or 2): how a room is scanned for
    /// measuring it, floor to ceiling. Take a multiple of 3 frames.
    case scan

    /// Camera-to-room poses of `count` frames in `scene`.
    func poses(count: Int, scene: SyntheticScene) -> [Pose] {
        let size = scene.size
        let height = scene.eye.z
        switch self {
        case .orbit, .scan:
            // The room's centre in a box room; in an L room, the middle of its wide corner.
            let centre = SIMD3(scene.orbitCentre.x, scene.orbitCentre.y, height)
            let radius = scene.orbitRadius
            // Start where the single-frame camera stands, so frame 0 shows the familiar corner.
            let start = atan2(scene.eye.y - centre.y, scene.eye.x - centre.x)
            return (0..<count).map { i in
                let angle = start + 2 * Double.pi * Double(i) / Double(count)
                let offset = SIMD3(cos(angle), sin(angle), 0) * radius
                var target = centre - offset * 2
                target.z = self == .orbit ? scene.target.z : [scene.target.z, height, 0.92 * size.z][i % 3]
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
