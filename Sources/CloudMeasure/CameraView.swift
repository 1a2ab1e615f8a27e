import CloudCore
import Foundation

/// Where a frame was taken from and which way it looked, for asking what it could have seen.
struct CameraView {
    var position: SIMD3<Double>
    /// Unit optical axis (the camera's +z) in the cloud's frame.
    var forward: SIMD3<Double>

    init(_ pose: Pose) {
        position = pose.translation
        forward = pose.apply(SIMD3(0, 0, 1)) - pose.translation
    }

    /// Whether `point` lies within `angle` of the optical axis.
    func looks(at point: SIMD3<Double>, within angle: Double) -> Bool {
        let d = point - position
        return dot(d, forward) > cos(angle) * (d * d).sum().squareRoot()
    }
}
