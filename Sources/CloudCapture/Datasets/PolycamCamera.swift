import CloudCore

/// One keyframe's camera file in a Polycam raw-data export (`keyframes/cameras/NAME.json`, or
/// `corrected_cameras/`): the intrinsics `fx fy cx cy` in pixels of the keyframe image of
/// `width` x `height`, and `t_00` ... `t_23`, the camera-to-world transform as a row-major 3x4
/// matrix in ARKit's camera axes (x right, y up, z towards the viewer). Other keys (blur_score,
/// timestamp, center_depth) are ignored.
struct PolycamCamera {
    /// A keyframe file holds a dozen numbers; anything this large is not one.
    static let maxBytes = 64 << 10

    var intrinsics: CameraIntrinsics
    /// Camera-to-world in cloudgen's camera axes (x right, y down, z forward).
    var pose: Pose

    init(path: String) throws {
        func bad(_ problem: String) -> CloudError { .badInput(.file(path), "\(problem)") }
        let object = try JSONNumbers.object(
            at: path, role: "a Polycam camera file", limit: Self.maxBytes,
            holds: "a Polycam camera file holds fx, fy, cx, cy, width, height and t_00 ... t_23")
        func number(_ key: String) throws -> Double {
            guard let entry = object[key] else { throw bad("no '\(key)'") }
            guard case .number(let value) = entry else { throw bad("'\(key)' is not a number") }
            guard value.isFinite else { throw bad("'\(key)' is not finite") }
            return value
        }
        func size(_ key: String) throws -> Int {
            let value = try number(key)
            guard value == value.rounded(), (1...ImageLimits.maxSide).contains(Int(exactly: value) ?? 0) else {
                throw bad("'\(key)' \(value) is not an image size in pixels (1...\(ImageLimits.maxSide))")
            }
            return Int(value)
        }
        intrinsics = CameraIntrinsics(
            fx: try number("fx"), fy: try number("fy"), cx: try number("cx"), cy: try number("cy"),
            referenceWidth: try size("width"), referenceHeight: try size("height"))
        try intrinsics.validate(origin: path)
        var t = [[Double]](repeating: [0, 0, 0, 0], count: 3)
        for row in 0..<3 {
            for column in 0..<4 { t[row][column] = try number("t_\(row)\(column)") }
        }
        let arkit = Pose(
            rows: (SIMD3(t[0][0], t[0][1], t[0][2]), SIMD3(t[1][0], t[1][1], t[1][2]), SIMD3(t[2][0], t[2][1], t[2][2])),
            translation: SIMD3(t[0][3], t[1][3], t[2][3]))
        if let problem = arkit.placementProblem { throw bad("the pose t_00 ... t_23: \(problem)") }
        pose = arkit.fromOpenGLCameraAxes
    }
}
