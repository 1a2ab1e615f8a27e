import CloudCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension RenderView {
    /// The orbit view closest to a posed camera's own, for a cloud in that pose's world frame: up
    /// is the world axis nearest the camera's up (−y in its frame), and azimuth and elevation turn
    /// the orbit towards the camera's viewing direction (+z in its frame). Rooms (z up) and
    /// sequences whose world frame is their first camera's (y down) both come out upright.
    public init(cameraPose pose: Pose, width: Int = defaultWidth, height: Int = defaultHeight) {
        let r = pose.rotation
        func column(_ k: Int) -> SIMD3<Float> { SIMD3(Float(r.0[k]), Float(r.1[k]), Float(r.2[k])) }
        let cameraUp = -column(1)
        let heading = column(2)
        var axis = 0
        for k in 1...2 where abs(cameraUp[k]) > abs(cameraUp[axis]) { axis = k }
        let up = UpAxis(axis: axis, negative: cameraUp[axis] < 0)
        let (f, right) = OrbitCamera.reference(for: up)
        let azimuth = Float(atan2(Double(dot(heading, right)), Double(dot(heading, f))) * 180 / .pi)
        let elevation = Float(asin(Double(max(-1, min(1, -dot(heading, up.vector))))) * 180 / .pi)
        self.init(width: width, height: height, azimuth: azimuth, elevation: elevation, up: up)
    }
}

extension RenderView {
    /// This view's azimuth and elevation taken as turns from a recorded camera's own view (its
    /// azimuth 0, elevation 0), upright as that camera was: how `render` and the service's preview
    /// draw a cloud whose file names its viewpoint.
    public func turned(fromCamera pose: Pose) -> RenderView {
        let base = RenderView(cameraPose: pose, width: width, height: height)
        var view = self
        view.up = base.up
        view.azimuth = base.azimuth + azimuth
        view.elevation = min(90, max(-90, base.elevation + elevation))
        return view
    }
}
