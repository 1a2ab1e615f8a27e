import CloudCore

/// `metadata.json` of a Record3D "EXR + JPG" export (the `metadata` file of a `.r3d` holds the same),
/// as Record3D's author describes it in the record3d repository's issues (Docs/formats.md cites them):
///
/// - `w`, `h`: the color images' size; `dw`, `dh` (optional here): the depth maps' size;
/// - `K`: the color camera's intrinsic matrix at `w` x `h`, 9 numbers in column-major order,
///   `[fx, 0, 0, 0, fy, 0, cx, cy, 1]`;
/// - `poses`: one `[qx, qy, qz, qw, px, py, pz]` per frame, camera-to-world, the quaternion's
///   scalar last, in OpenGL's camera axes (x right, y up, z towards the viewer).
///
/// - `fps` (optional): the frame rate, which times the frames (frame N at N / fps seconds).
///
/// Other keys (initPose, frameTimestamps, cameraType, perFrameIntrinsicCoeffs) are not read.
struct Record3DMetadata {
    /// A pose is seven numbers of some 20 characters: an hour at 60 frames per second fits 64 MiB.
    static let maxBytes = 64 << 20

    /// At the color images' size (`w` x `h`).
    var intrinsics: CameraIntrinsics
    /// `dw` x `dh`, when the file says.
    var depthSize: (width: Int, height: Int)?
    /// Camera-to-world in cloudgen's camera axes (x right, y down, z forward), one per frame.
    var poses: [Pose]
    /// Frames a second: `fps`, else `DatasetFrame.nominalFrameRate`.
    var frameRate: Double

    init(path: String) throws {
        func bad(_ problem: String) -> CloudError { .badInput(.file(path), "\(problem)") }
        let object = try JSONNumbers.object(
            at: path, role: "Record3D's metadata", limit: Self.maxBytes,
            holds: "Record3D's metadata holds w, h, K and poses")
        func numbers(_ key: String) throws -> [Double]? {
            guard let entry = object[key] else { return nil }
            guard case .array(let items) = entry else { throw bad("'\(key)' is not an array") }
            return try items.enumerated().map { index, item in
                guard case .number(let value) = item, value.isFinite else { throw bad("'\(key)'[\(index)] is not a finite number") }
                return value
            }
        }
        func size(_ key: String) throws -> Int? {
            guard let entry = object[key] else { return nil }
            guard case .number(let value) = entry, value == value.rounded(), (1...ImageLimits.maxSide).contains(Int(exactly: value) ?? 0)
            else {
                throw bad("'\(key)' is not an image size in pixels (1...\(ImageLimits.maxSide))")
            }
            return Int(value)
        }
        guard let width = try size("w"), let height = try size("h") else { throw bad("no 'w' and 'h' (the color images' size)") }
        guard let k = try numbers("K") else { throw bad("no 'K' (the intrinsic matrix)") }
        guard k.count == 9 else { throw bad("'K' holds \(k.count) numbers, not the 9 of a 3x3 matrix") }
        // Column-major: the third row is (0, 0, 1) at 2, 5 and 8; a row-major matrix would put cx at 2.
        guard k[1] == 0, k[2] == 0, k[3] == 0, k[5] == 0, k[8] == 1 else {
            throw bad("'K' is not a column-major pinhole matrix [fx, 0, 0, 0, fy, 0, cx, cy, 1]: \(k)")
        }
        intrinsics = CameraIntrinsics(fx: k[0], fy: k[4], cx: k[6], cy: k[7], referenceWidth: width, referenceHeight: height)
        try intrinsics.validate(origin: path)
        switch (try size("dw"), try size("dh")) {
        case let (dw?, dh?): depthSize = (dw, dh)
        case (nil, nil): depthSize = nil
        default: throw bad("one of 'dw' and 'dh' without the other")
        }

        switch object["fps"] {
        case nil: frameRate = DatasetFrame.nominalFrameRate
        case .number(let fps)? where fps.isFinite && fps > 0 && fps <= 1000: frameRate = fps
        default: throw bad("'fps' is not a frame rate (a number of frames a second, above 0 and at most 1000)")
        }

        guard let entry = object["poses"] else { throw bad("no 'poses' (a camera pose per frame)") }
        guard case .array(let rows) = entry, !rows.isEmpty else { throw bad("'poses' is not a non-empty array") }
        poses = try rows.enumerated().map { index, row in
            guard case .array(let items) = row, items.count == 7 else {
                throw bad("poses[\(index)] is not 7 numbers [qx, qy, qz, qw, px, py, pz]")
            }
            let p = try items.map { item -> Double in
                guard case .number(let value) = item, value.isFinite else {
                    throw bad("poses[\(index)] holds something other than a finite number")
                }
                return value
            }
            guard let opengl = Pose(translation: SIMD3(p[4], p[5], p[6]), w: p[3], x: p[0], y: p[1], z: p[2]) else {
                throw bad("poses[\(index)] has a zero quaternion, which is no rotation")
            }
            if let problem = opengl.placementProblem { throw bad("poses[\(index)] (frame \(index)): \(problem)") }
            return opengl.fromOpenGLCameraAxes
        }
    }
}
