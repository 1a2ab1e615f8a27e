import CloudCore

/// A rendered picture with the depth buffer it was shaded from.
public struct RenderedFrame: Sendable {
    public var image: ColorImage
    public var buffer: DepthBuffer
    public var camera: OrbitCamera
}

/// Draws a point cloud from orbit cameras: depth-buffered square splats, then shading, then
/// optional eye-dome lighting. Holds the cloud and its bounds so that a turntable measures them
/// once.
public struct PointRenderer: Sendable {
    public let cloud: PointCloud
    /// Of the finite points; nil for a cloud without any.
    public let bounds: (min: SIMD3<Float>, max: SIMD3<Float>)?
    /// Names the cloud in refusals (its file).
    public let origin: String

    public init(cloud: PointCloud, origin: String = "the cloud") {
        self.cloud = cloud
        self.origin = origin
        bounds = cloud.bounds
    }

    /// Color modes this cloud can be drawn in: rgb needs colors, normal needs normals.
    public func check(_ mode: ColorMode) throws {
        if mode == .rgb && cloud.colors == nil {
            throw CloudError.badInput(
                .option("color", "rgb"), "the cloud has no colors; use \(option: "color", "height") or \(option: "color", "depth")")
        }
        if mode == .normal && cloud.normals == nil {
            throw CloudError.badInput(
                .option("color", "normal"),
                "the cloud has no normals; write them with \(option: "normals"), or use \(option: "color", "height")")
        }
    }

    /// rgb when the cloud has colors, height otherwise.
    public var defaultColorMode: ColorMode { cloud.colors != nil ? .rgb : .height }

    /// The camera for `view`, at azimuth `view.azimuth + turn`; a view without a distance gets
    /// the one that fits the whole cloud (an empty cloud gets 1 m around the origin), and with
    /// `centred` its target moves so that the visible cloud sits in the middle of the picture.
    /// Throws when the cloud's coordinates are too large for a finite camera.
    public func camera(for view: RenderView, turn: Float = 0, centred: Bool = true) throws -> OrbitCamera {
        let centre = bounds.map { ($0.min + $0.max) / 2 } ?? .zero
        var camera = OrbitCamera(
            target: centre, distance: view.distance ?? 1, azimuth: view.azimuth + turn,
            elevation: view.elevation, fieldOfView: view.fieldOfView, up: view.up,
            width: view.width, height: view.height)
        if view.distance == nil, bounds != nil {
            cloud.positions.withUnsafeBufferPointer { points in
                camera.distance = camera.fittingDistance(positions: points)
                // Centre what is seen and fit again around the new target; perspective makes the
                // near side larger, so a few rounds settle it.
                for _ in 0..<(centred ? 4 : 0) {
                    camera = camera.centred(on: points)
                    camera.distance = camera.fittingDistance(positions: points)
                }
            }
        }
        // Coordinates near Float's limit overflow the box's centre or the fitted distance: the
        // picture would come out blank with an infinite camera, so refuse the file instead.
        let eye = camera.eye
        guard camera.distance.isFinite, eye.x.isFinite, eye.y.isFinite, eye.z.isFinite else {
            throw CloudError.badInput(
                "\(origin): coordinates too large to frame (the camera would sit at \(camera.distance) m); "
                    + "a cloud in metres spans well under 1e6 m")
        }
        return camera
    }

    /// `frames` cameras evenly around the up axis from `view`'s azimuth, all at one distance (the
    /// largest fitting one unless `view` sets it) around one target (the cloud's centre), so that
    /// the cloud neither zooms nor wanders as it turns.
    public func turntableCameras(for view: RenderView, frames: Int) throws -> [OrbitCamera] {
        var cameras = try (0..<frames).map { try camera(for: view, turn: 360 * Float($0) / Float(frames), centred: false) }
        let distance = view.distance ?? cameras.map(\.distance).max() ?? 1
        for i in cameras.indices { cameras[i].distance = distance }
        return cameras
    }

    /// Rasterises and shades one picture. `threads` 0 uses every core on large clouds.
    public func render(_ camera: OrbitCamera, style: RenderStyle, threads: Int = 0) throws -> RenderedFrame {
        try check(style.color)
        let buffer = rasterise(camera, pointSize: style.pointSize, threads: threads)
        return shade(buffer, camera: camera, style: style)
    }

    public func rasterise(_ camera: OrbitCamera, pointSize: Int, threads: Int = 0) -> DepthBuffer {
        cloud.positions.withUnsafeBufferPointer {
            DepthBuffer(positions: $0, camera: camera, pointSize: pointSize, threads: threads)
        }
    }

    /// `style.color` must be one `check` accepts: shading reads the colors or normals it names.
    public func shade(_ buffer: DepthBuffer, camera: OrbitCamera, style: RenderStyle) -> RenderedFrame {
        precondition((try? check(style.color)) != nil, "--color \(style.color.rawValue) needs data the cloud lacks; call check first")
        let up = camera.up
        let heights =
            bounds.map { b -> ClosedRange<Float> in
                let (lo, hi) = (b.min[up.axis], b.max[up.axis])
                return up.negative ? -hi ... -lo : lo...hi
            } ?? 0...1
        var rgb = Shading(style: style, basis: camera.basis, up: up, heights: heights).shade(buffer, cloud: cloud)
        if style.eyeDomeLighting {
            EyeDomeLighting.apply(to: &rgb, buffer: buffer, radius: Swift.max(1, style.pointSize / 2))
        }
        return RenderedFrame(image: ColorImage(width: camera.width, height: camera.height, rgb: rgb), buffer: buffer, camera: camera)
    }
}
