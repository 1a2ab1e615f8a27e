import CloudCore

/// The built-in simulated depth camera (`--source synthetic`): ray-casts `SyntheticScene` into a
/// depth plane in the requested encoding and a YUV 4:2:0 color image, as a phone's depth camera
/// delivers them, with intrinsics given at the color resolution (or at `reference=`) so that
/// scaling to the depth size is exercised, optionally through a barrel lens whose lookup tables
/// come with the frame (`distortion=1`, `SyntheticLens`). The pose is known exactly. Output is a
/// pure function of the settings: the same spec gives the same bytes on every run.
///
/// One `open()` delivers `frames` frames (1 by default), then nil. A sequence moves the camera
/// along `path` (or keeps it still) and draws each frame's noise from its own stream.
///
/// `yaw=` turns the room about the vertical through the camera's eye: the first camera keeps its
/// world pose and sees the room from another angle (every camera turns by -yaw relative to the
/// room), and the world frame's walls are no longer axis-aligned. `roll=` rolls every camera
/// about its optical axis. `sensor=` swaps the generic noise for a real sensor's.
public final class SyntheticCamera: DepthSource {
    public let settings: SyntheticSettings
    public let scene: SyntheticScene
    /// At the reference dimensions: the color resolution unless `reference=` says otherwise.
    public let intrinsics: CameraIntrinsics
    /// The lens tables delivered with every frame when `distortion=1`.
    public var distortion: LensDistortion? { lens?.distortion }
    /// Camera to world frame of the first frame.
    public var pose: Pose { poses[0] }
    /// Camera to world frame of every frame of the sequence, as delivered.
    public let poses: [Pose]
    /// Camera to room frame of every frame: what is rendered (the same as `poses` without yaw).
    public let roomPoses: [Pose]

    /// Depth noise standard deviation at depth z, growing with distance as structured-light and
    /// time-of-flight sensors' does.
    public static func noiseSigma(depth z: Double) -> Double { 0.001 + 0.0015 * z * z }
    /// Fraction of pixels dropped at random.
    public static let dropoutRate = 0.01
    /// Pixels whose ray meets the surface at a cosine below this are dropped (too grazing to return).
    public static let grazingCosine = 0.1
    /// The color planes' encoding: AVFoundation's '420f' with HD matrix, as iPhones deliver.
    public static let colorFormat = YUVFormat(range: .full, matrix: .bt709)

    private let lens: SyntheticLens?
    private var delivered = 0

    public init(settings: SyntheticSettings = SyntheticSettings()) throws {
        try settings.validate()
        // The color planes are YUV 4:2:0, 1.5 bytes per pixel.
        try FrameMemory.require(
            depth: settings.depthSize, rawBytesPerSample: settings.format.encoding.bytesPerSample,
            colorBytes: settings.colorSize.width * settings.colorSize.height * 3 / 2,
            color: settings.colorSize, about: .source(settings.spec))
        self.settings = settings
        let scene = SyntheticScene(
            size: settings.room, shape: settings.shape, door: settings.door,
            furniture: settings.furniture, yaw: settings.yaw)
        self.scene = scene
        intrinsics = Self.intrinsics(color: settings.reference)
        lens = settings.distortion ? SyntheticLens(reference: settings.reference) : nil
        let upright =
            settings.path?.poses(count: settings.frames, scene: scene)
            ?? Array(repeating: Pose.lookAt(eye: scene.eye, target: scene.target), count: settings.frames)
        if settings.yaw == 0 && settings.roll == 0 {
            (roomPoses, poses) = (upright, upright)
        } else {
            let (roll, turn) = (Pose.zRotation(degrees: settings.roll), Pose.zRotation(degrees: -settings.yaw))
            roomPoses = upright.map { $0.rotatedInCameraFrame(roll).turnedInPlace(turn) }
            poses = roomPoses.map { scene.roomToWorld.composed(after: $0) }
        }
    }

    /// Frames 1/30 s apart, like a 30 fps camera.
    public static let frameInterval = 1.0 / 30

    /// Phone-like intrinsics for a color image of `size`: about 67 degrees horizontal field of
    /// view, square pixels, and a principal point slightly off-centre as real calibrations have.
    public static func intrinsics(color size: ImageSize) -> CameraIntrinsics {
        let (w, h) = (Double(size.width), Double(size.height))
        return CameraIntrinsics(
            fx: 0.76 * w, fy: 0.76 * w, cx: 0.497 * w, cy: 0.503 * h,
            referenceWidth: size.width, referenceHeight: size.height)
    }

    public var name: String { settings.spec }
    public var knowsPose: Bool { true }

    public func nextFrame() throws -> CapturedFrame? {
        guard delivered < poses.count else { return nil }
        delivered += 1
        return renderFrame(delivered - 1)
    }

    /// Renders frame `index` of the sequence, without advancing the source.
    public func renderFrame(_ index: Int = 0) -> CapturedFrame {
        let pose = roomPoses[index]
        return CapturedFrame(
            depth: renderDepth(pose: pose, frame: index), color: renderColor(pose: pose),
            intrinsics: intrinsics, pose: poses[index], timestamp: Double(index) * Self.frameInterval,
            distortion: distortion)
    }

    /// The depth plane of the camera at room-frame `pose`, with the noise of `frame`'s streams.
    private func renderDepth(pose: Pose, frame: Int) -> CapturedFrame.Depth {
        let (w, h) = (settings.depthSize.width, settings.depthSize.height)
        let rays = SyntheticView(scene: scene, pose: pose, intrinsics: intrinsics, lens: lens, width: w, height: h)
        let format = settings.format
        let rowBytes = w * format.encoding.bytesPerSample
        // Frame 0 keeps the single-frame noise streams; later frames take their own.
        let (scene, eye, noise, seed) = (scene, Vec3(pose.translation), settings.noise, settings.seed &+ UInt64(frame) &* 0x9E37_79B9)
        if settings.sensor == .lidar {
            return renderLiDARDepth(rays: rays, eye: eye, seed: seed)
        }
        let kinect = settings.sensor == .kinect
        var data = [UInt8](repeating: 0, count: rowBytes * h)
        data.withUnsafeMutableBytes { plane in
            Parallel.parts(h) { v in
                let row = UnsafeMutableRawBufferPointer(rebasing: plane[(v * rowBytes)..<((v + 1) * rowBytes)])
                var random = SplitMix64(seed: seed, stream: UInt64(v))
                let rowCandidates = rays.candidates(row: v)
                for u in 0..<w {
                    let (d, candidates) = rays.ray(u: u, v: v, row: rowCandidates)
                    let hit = scene.cast(origin: eye, direction: d, inverse: d.reciprocal, candidates: candidates)
                    var z = hit.t
                    if noise {
                        // Two draws per pixel whatever happens, so one pixel's fate never shifts another's.
                        let dropped = random.unit() < Self.dropoutRate
                        let g = random.gaussian()
                        let cosine = abs(hit.normal.dot(d)) / d.length
                        z =
                            dropped || cosine < Self.grazingCosine
                            ? 0
                            : kinect ? KinectNoise.measure(depth: z, gaussian: g) : z + Self.noiseSigma(depth: z) * g
                    }
                    format.store(z, into: row, at: u)
                }
            }
        }
        return CapturedFrame.Depth(width: w, height: h, encoding: format.encoding, data: data, bytesPerRow: rowBytes)
    }

    /// `sensor=lidar`'s depth plane (`LiDARNoise`): every pixel's exact depth with raw noise, then
    /// smoothed over its neighbours, so a second pass over the whole plane.
    private func renderLiDARDepth(rays: SyntheticView, eye: Vec3, seed: UInt64) -> CapturedFrame.Depth {
        let (w, h) = (settings.depthSize.width, settings.depthSize.height)
        let (scene, format) = (scene, settings.format)
        let rowBytes = w * format.encoding.bytesPerSample
        var raw = [Double](repeating: 0, count: w * h)
        raw.withUnsafeMutableBufferPointer { raw in
            Parallel.parts(h) { v in
                var random = SplitMix64(seed: seed, stream: UInt64(v))
                let rowCandidates = rays.candidates(row: v)
                for u in 0..<w {
                    let (d, candidates) = rays.ray(u: u, v: v, row: rowCandidates)
                    let z = scene.cast(origin: eye, direction: d, inverse: d.reciprocal, candidates: candidates).t
                    raw[v * w + u] = z + LiDARNoise.sigma(depth: z) / LiDARNoise.smoothingGain * random.gaussian()
                }
            }
        }
        var data = [UInt8](repeating: 0, count: rowBytes * h)
        raw.withUnsafeBufferPointer { raw in
            data.withUnsafeMutableBytes { plane in
                Parallel.parts(h) { v in
                    let row = UnsafeMutableRawBufferPointer(rebasing: plane[(v * rowBytes)..<((v + 1) * rowBytes)])
                    for u in 0..<w {
                        format.store(LiDARNoise.smoothed(raw, width: w, height: h, u: u, v: v), into: row, at: u)
                    }
                }
            }
        }
        return CapturedFrame.Depth(width: w, height: h, encoding: format.encoding, data: data, bytesPerRow: rowBytes)
    }

    /// Y at every pixel; Cb and Cr averaged over each 2x2 block (a partial block at odd edges),
    /// which is what a camera's 4:2:0 subsampling does.
    private func renderColor(pose: Pose) -> CapturedFrame.Color {
        let (w, h) = (settings.colorSize.width, settings.colorSize.height)
        let (cw, ch) = ((w + 1) / 2, (h + 1) / 2)
        let rays = SyntheticView(scene: scene, pose: pose, intrinsics: intrinsics, lens: lens, width: w, height: h)
        let (scene, eye, yuv) = (scene, Vec3(pose.translation), Self.colorFormat)
        var luma = [UInt8](repeating: 0, count: w * h)
        var chroma = [UInt8](repeating: 0, count: cw * ch * 2)
        luma.withUnsafeMutableBufferPointer { luma in
            chroma.withUnsafeMutableBufferPointer { chroma in
                Parallel.parts(ch) { by in
                    let rows = (2 * by)..<min(2 * by + 2, h)
                    let rowCandidates = (rays.candidates(row: rows.lowerBound), rays.candidates(row: rows.upperBound - 1))
                    // Neighbouring pixels mostly share a color (flat surfaces, slow shading): reuse
                    // the last conversion rather than converting every pixel again.
                    var last = (rgb: (r: UInt8(0), g: UInt8(0), b: UInt8(0)), code: yuv.ycbcr(r: 0, g: 0, b: 0))
                    for bx in 0..<cw {
                        var (cb, cr, n) = (0, 0, 0)
                        for v in rows {
                            let row = v == rows.lowerBound ? rowCandidates.0 : rowCandidates.1
                            for u in (2 * bx)..<min(2 * bx + 2, w) {
                                let (d, candidates) = rays.ray(u: u, v: v, row: row)
                                let c = scene.shadedColor(origin: eye, direction: d, candidates: candidates)
                                if c != last.rgb { last = (c, yuv.ycbcr(r: c.r, g: c.g, b: c.b)) }
                                let code = last.code
                                luma[v * w + u] = code.y
                                cb += Int(code.cb)
                                cr += Int(code.cr)
                                n += 1
                            }
                        }
                        chroma[2 * (by * cw + bx)] = UInt8((cb + n / 2) / n)
                        chroma[2 * (by * cw + bx) + 1] = UInt8((cr + n / 2) / n)
                    }
                }
            }
        }
        return CapturedFrame.Color(width: w, height: h, layout: .yuv420BiPlanar(yuv), planes: [luma, chroma])
    }
}
