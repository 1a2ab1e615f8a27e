import CloudCore
import Foundation

@testable import CloudRender

/// A cloud of isolated points, each in a color of its own, on black: where a color shows up is
/// where its point landed.
struct MarkerCloud {
    var points: [SIMD3<Float>]

    var cloud: PointCloud {
        PointCloud(
            positions: points.flatMap { [$0.x, $0.y, $0.z] },
            colors: points.indices.flatMap { Self.color($0) })
    }

    /// Distinct, never black.
    static func color(_ i: Int) -> [UInt8] { [UInt8(20 + 37 * i % 230), UInt8(200 - 11 * i % 180), UInt8(60 + i)] }

    /// Centre of every pixel in `image` with point `i`'s color, or nil when none has it.
    static func pixels(of i: Int, in image: ColorImage) -> [(x: Float, y: Float)] {
        let c = color(i)
        var found: [(Float, Float)] = []
        for y in 0..<image.height {
            for x in 0..<image.width {
                let at = 3 * (y * image.width + x)
                if image.rgb[at] == c[0] && image.rgb[at + 1] == c[1] && image.rgb[at + 2] == c[2] {
                    found.append((Float(x) + 0.5, Float(y) + 0.5))
                }
            }
        }
        return found
    }
}

let black = RGB8(r: 0, g: 0, b: 0)

/// The textbook look-at camera, built independently of OrbitCamera: the eye on a sphere around the
/// target (spherical angles measured in the orbit's reference frame `forward`, `right`, `up`),
/// looking at the target, then the pinhole model.
struct LookAtPinhole {
    var eye: SIMD3<Float>
    var target: SIMD3<Float>
    var worldUp: SIMD3<Float>
    var focal: Float
    var width: Int
    var height: Int

    init(
        target: SIMD3<Float>, distance: Float, azimuthDegrees: Double, elevationDegrees: Double,
        forward: SIMD3<Float>, right: SIMD3<Float>, up: SIMD3<Float>, fovDegrees: Double, width: Int, height: Int
    ) {
        let (az, el) = (azimuthDegrees * .pi / 180, elevationDegrees * .pi / 180)
        // The eye sits behind the target along the viewing direction and above it for positive elevation.
        let back = -Float(cos(el) * cos(az)) * forward - Float(cos(el) * sin(az)) * right + Float(sin(el)) * up
        eye = target + distance * back
        self.target = target
        worldUp = up
        focal = Float(Double(height) / 2 / tan(fovDegrees * .pi / 360))
        self.width = width
        self.height = height
    }

    func project(_ p: SIMD3<Float>) -> (x: Float, y: Float) {
        let f = normalize(target - eye)
        let r = normalize(crossProduct(f, worldUp))
        let u = crossProduct(r, f)
        let v = p - eye
        let z = (v * f).sum()
        return (Float(width) / 2 + focal * (v * r).sum() / z, Float(height) / 2 - focal * (v * u).sum() / z)
    }

    private func normalize(_ v: SIMD3<Float>) -> SIMD3<Float> { v / (v * v).sum().squareRoot() }
    private func crossProduct(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> SIMD3<Float> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }
}

/// SplitMix64-style generator, so that scenes are the same on every run.
struct SeededRandom {
    var state: UInt64
    mutating func next() -> Float {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Float((z ^ (z >> 31)) >> 40) / Float(1 << 24)
    }
}
