import CloudCore
import CloudImages
import Foundation
import SafeIO

/// A capture bundle read back (`--source bundle:DIR`; layout in Docs/formats.md): what a phone app
/// built on AVFoundation's depth capture stores, one frame per manifest entry.
///
/// Opening checks the whole bundle before any frame is delivered: the manifest's names, sizes,
/// calibration and poses, every frame file's presence and length (opened, not read), and every
/// JPEG's headers and size; so most bad bundles fail before a caller has written anything. A JPEG
/// is decoded once, when its frame is read: damaged compressed data past its headers fails then,
/// as a dataset's corrupt image does. Everything wrong is `CloudError.badInput` naming the file
/// (manifest.json or the frame file); a file the system cannot read is `CloudError.io`.
public final class BundleSource: DepthSource {
    public let directory: String
    public let frameCount: Int
    /// Whether every frame carries a camera-to-world pose (a bundle has poses for all or none).
    public let knowsPose: Bool
    /// False when any frame's depth accuracy is relative: dual-camera disparity has no known
    /// scale, so distances in the cloud are not metres.
    public let isMetric: Bool
    /// Things a user should know about the bundle that do not stop it being read, one line each.
    public let warnings: [CloudWarning]

    public var name: String { "bundle:\(directory)" }

    /// Larger manifests are not a bundle's (a 42-entry calibration per frame is ~3 KB).
    static let maxManifestBytes = 64 << 20
    /// JPEG files above this are refused before being read.
    static let maxJPEGBytes = 256 << 20

    private let plans: [FramePlan]
    private var next = 0

    public init(directory: String) throws {
        self.directory = directory
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            throw CloudError.badInput(.source("bundle:\(directory)"), "no such directory")
        }
        guard isDirectory.boolValue else { throw CloudError.badInput(.source("bundle:\(directory)"), "not a directory") }
        let manifestPath = Self.path(directory, BundleManifest.fileName)
        let manifest = try Self.readManifest(manifestPath)
        func bad(_ problem: String) -> CloudError { .badInput(.file(manifestPath), "\(problem)") }
        guard manifest.format == BundleManifest.formatName else {
            throw bad("format is '\(manifest.format)', expected '\(BundleManifest.formatName)'")
        }
        guard manifest.version == BundleManifest.currentVersion else {
            throw bad("version \(manifest.version) is not supported (this build reads version \(BundleManifest.currentVersion))")
        }
        guard !manifest.frames.isEmpty else { throw bad("the bundle has no frames") }
        let posed = manifest.frames.map { $0.cameraToWorld != nil }
        if let i = posed.firstIndex(of: !posed[0]) {
            throw bad(
                "frames[\(i)] \(posed[0] ? "lacks" : "has") a cameraToWorld pose while frames[0] \(posed[0] ? "has" : "lacks") one; give every frame a pose or none"
            )
        }
        var plans: [FramePlan] = []
        for (i, frame) in manifest.frames.enumerated() {
            plans.append(try FramePlan(frame, index: i, directory: directory, manifestPath: manifestPath))
        }
        self.plans = plans
        frameCount = plans.count
        knowsPose = posed[0]
        isMetric = plans.allSatisfy { $0.accuracy == .absolute }

        var warnings: [CloudWarning] = []
        let source = CloudError.Subject.source("bundle:\(directory)")
        if !isMetric {
            let n = plans.filter { $0.accuracy == .relative }.count
            warnings.append(
                CloudWarning(
                    source,
                    "depth accuracy is relative in \(n) of \(plans.count) frames (dual-camera disparity): distances have no known scale, so the cloud is not metric"
                ))
        }
        if let (i, t) = plans.enumerated().lazy.compactMap({ i, p in p.parallax.map { (i, $0) } }).first {
            warnings.append(
                CloudWarning(
                    source,
                    "frames[\(i)]'s depth-to-color extrinsics are not the identity (baseline \(Self.millimetres(t)) mm); colors are sampled as if depth and color were registered, so they are off near depth edges"
                ))
        }
        if let (i, error) = plans.enumerated().lazy.compactMap({ i, p in p.tableMismatch.map { (i, $0) } }).first {
            warnings.append(
                CloudWarning(
                    source,
                    "frames[\(i)]'s lens distortion tables do not invert each other (up to \(String(format: "%.2f", error)) reference pixels): are the forward and inverse tables swapped?"
                ))
        }
        self.warnings = warnings
    }

    public func nextFrame() throws -> CapturedFrame? {
        guard next < plans.count else { return nil }
        let plan = plans[next]
        next += 1
        return try plan.read()
    }

    static func path(_ directory: String, _ relative: String) -> String {
        URL(fileURLWithPath: directory).appendingPathComponent(relative).path
    }

    private static func millimetres(_ t: Double) -> String { String(format: "%.1f", t * 1000) }

    private static func readManifest(_ path: String) throws -> BundleManifest {
        let data = Data(try InputFile.readAll(path, role: "the bundle's manifest", limit: maxManifestBytes))
        do {
            // Foundation's decoder reports any syntax error as "not valid JSON"; the parser says what and where.
            _ = try JSONSerialization.jsonObject(with: data)
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            throw CloudError.badInput(.file(path), CloudError.Reason("not valid JSON" + (detail.map { " (\($0))" } ?? "")))
        }
        try JSONDuplicateKeys.check([UInt8](data), origin: path)
        do {
            return try JSONDecoder().decode(BundleManifest.self, from: data)
        } catch let error as DecodingError {
            throw CloudError.badInput(.file(path), "\(describe(error))")
        }
    }

    /// A decoding error as "frames[2].depth.width: expected a number" rather than Foundation's dump.
    private static func describe(_ error: DecodingError) -> String {
        func location(_ path: [CodingKey]) -> String {
            let text = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.hasPrefix(".") ? String(text.dropFirst()) : text
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(location(context.codingPath + [key])) is missing"
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            let name = "\(type)"
            let expected =
                type == String.self
                ? "a string"
                : type == Bool.self
                    ? "true or false"
                    : (type == Int.self || type == Double.self)
                        ? "a number"
                        : name.hasPrefix("Array") ? "an array" : name.hasPrefix("Dictionary") ? "an object" : name
            return "\(location(context.codingPath)): expected \(expected)"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? context.debugDescription : "\(location(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

/// One frame, checked and resolved at open: where its files are and how to read them.
private struct FramePlan {
    struct Plane {
        var path: String
        var bytes: Int
    }

    var timestamp: Double
    var depthPlane: Plane
    var depthEncoding: DepthEncoding
    var depthSize: ImageSize
    var accuracy: CapturedFrame.Depth.Accuracy
    var filtered: Bool
    var colorFormat: BundleColorFormat?
    var colorSize: ImageSize
    var colorPlanes: [Plane]
    var yuvMatrix: YUVFormat.Matrix
    var intrinsics: CameraIntrinsics
    var distortion: LensDistortion?
    var depthToColor: Pose?
    var pose: Pose?
    /// The depth-to-color baseline in metres, when depth and color are not registered (the
    /// extrinsics move by more than half a millimetre or rotate).
    var parallax: Double?
    /// How far, in reference pixels, the forward table fails to undo the inverse one.
    var tableMismatch: Double?

    init(_ f: BundleManifest.Frame, index i: Int, directory: String, manifestPath: String) throws {
        func bad(_ problem: String) -> CloudError { .badInput(.file(manifestPath), "frames[\(i)].\(problem)") }
        guard f.timestamp.isFinite else { throw bad("timestamp must be a finite number of seconds") }
        timestamp = f.timestamp

        let d = f.depth
        guard let depthFormat = BundleDepthFormat(rawValue: d.format) else {
            throw bad("depth.format '\(d.format)' is not one of \(BundleDepthFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let accuracy = CapturedFrame.Depth.Accuracy(rawValue: d.accuracy) else {
            throw bad("depth.accuracy '\(d.accuracy)' is not absolute or relative")
        }
        try ImageLimits.check(width: d.width, height: d.height, origin: "\(manifestPath): frames[\(i)].depth")
        depthEncoding = depthFormat.encoding
        depthSize = ImageSize(width: d.width, height: d.height)
        self.accuracy = accuracy
        filtered = d.filtered
        let depthBytes = d.width * d.height * depthEncoding.bytesPerSample
        depthPlane = try Self.plane(
            d.file, key: "depth.file", bytes: depthBytes,
            what: "\(d.width)x\(d.height) \(depthFormat.rawValue) plane", directory, bad)

        colorSize = ImageSize(width: 0, height: 0)
        colorPlanes = []
        yuvMatrix = .bt709
        if let c = f.color {
            guard let format = BundleColorFormat(rawValue: c.format) else {
                throw bad("color.format '\(c.format)' is not one of \(BundleColorFormat.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            try ImageLimits.check(width: c.width, height: c.height, origin: "\(manifestPath): frames[\(i)].color")
            guard c.files.count == format.extensions.count else {
                throw bad(
                    "color.files lists \(c.files.count) files; \(format.rawValue) color is \(format.extensions.count) (\(format.extensions.joined(separator: ", ")))"
                )
            }
            switch (format, c.yCbCrMatrix) {
            case (.yuv420f, let name?), (.yuv420v, let name?):
                guard let matrix = YUVFormat.Matrix(rawValue: name) else {
                    throw bad("color.yCbCrMatrix '\(name)' is not bt709 or bt601")
                }
                yuvMatrix = matrix
            case (.bgra, _?), (.jpeg, _?):
                throw bad("color.yCbCrMatrix applies to the YUV formats only, not \(format.rawValue)")
            default:
                break
            }
            let (w, h) = (c.width, c.height)
            let chroma = ((w + 1) / 2) * ((h + 1) / 2) * 2
            switch format {
            case .yuv420f, .yuv420v:
                colorPlanes = [
                    try Self.plane(c.files[0], key: "color.files[0]", bytes: w * h, what: "\(w)x\(h) Y plane", directory, bad),
                    try Self.plane(c.files[1], key: "color.files[1]", bytes: chroma, what: "\(w)x\(h) CbCr plane", directory, bad)
                ]
            case .bgra:
                colorPlanes = [
                    try Self.plane(c.files[0], key: "color.files[0]", bytes: w * h * 4, what: "\(w)x\(h) BGRA plane", directory, bad)
                ]
            case .jpeg:
                let jpeg = try Self.plane(c.files[0], key: "color.files[0]", bytes: nil, what: "JPEG", directory, bad)
                guard jpeg.bytes <= BundleSource.maxJPEGBytes else {
                    throw CloudError.badInput(
                        .file(jpeg.path), "\(jpeg.bytes) bytes is more than any JPEG color frame (at most \(BundleSource.maxJPEGBytes))")
                }
                // The header alone tells a truncated or foreign file and a size that disagrees with
                // the manifest, before the pixels are decoded (or a decoder is even available).
                let size = try JPEGHeader.dimensions(of: jpeg.path)
                guard size == ImageSize(width: w, height: h) else {
                    throw CloudError.badInput(.file(jpeg.path), "the JPEG is \(size), the manifest says \(w)x\(h)")
                }
                colorPlanes = [jpeg]
            }
            colorFormat = format
            colorSize = ImageSize(width: w, height: h)
        }
        // The planes are loaded as stored (a JPEG also decoded to RGB) when the frame is read.
        let colorBytes = colorPlanes.reduce(0) { $0 + $1.bytes } + (colorFormat == .jpeg ? colorSize.width * colorSize.height * 3 : 0)
        try FrameMemory.require(
            depth: depthSize, rawBytesPerSample: depthEncoding.bytesPerSample, colorBytes: colorBytes,
            color: colorFormat == nil ? nil : colorSize, about: .file("\(manifestPath): frames[\(i)]"))

        let cal = f.calibration
        let m = cal.intrinsicMatrix
        guard m.count == 3, m.allSatisfy({ $0.count == 3 }) else {
            throw bad("calibration.intrinsicMatrix must be 3 columns of 3 numbers")
        }
        // [[fx, 0, 0], [0, fy, 0], [ox, oy, 1]]: no skew, an ordinary last row.
        guard m[0][1] == 0, m[0][2] == 0, m[1][0] == 0, m[1][2] == 0, m[2][2] == 1 else {
            throw bad("calibration.intrinsicMatrix must be [[fx, 0, 0], [0, fy, 0], [ox, oy, 1]] (columns; no skew)")
        }
        let dims = cal.referenceDimensions
        intrinsics = CameraIntrinsics(
            fx: m[0][0], fy: m[1][1], cx: m[2][0], cy: m[2][1],
            referenceWidth: dims.width, referenceHeight: dims.height)
        try intrinsics.validate(origin: "\(manifestPath): frames[\(i)].calibration")

        switch (cal.lensDistortionCenter, cal.lensDistortionLookupTable, cal.inverseLensDistortionLookupTable) {
        case (nil, nil, nil):
            distortion = nil
        case let (center?, table?, inverse?):
            guard center.count == 2 else { throw bad("calibration.lensDistortionCenter must be [x, y]") }
            let lens = LensDistortion(
                center: SIMD2(center[0], center[1]), referenceWidth: dims.width,
                referenceHeight: dims.height, lookupTable: table, inverseLookupTable: inverse)
            try lens.validate(origin: "\(manifestPath): frames[\(i)].calibration")
            distortion = lens
        default:
            throw bad(
                "calibration needs lensDistortionCenter, lensDistortionLookupTable and inverseLensDistortionLookupTable together, or none of them"
            )
        }
        tableMismatch = distortion.flatMap(Self.tableMismatch)

        if let e = cal.extrinsicMatrix {
            guard e.count == 4, e.allSatisfy({ $0.count == 3 }) else {
                throw bad("calibration.extrinsicMatrix must be 4 columns of 3 numbers ([R | t], t in millimetres)")
            }
            let pose = try Self.rigidPose(columns: e, translationScale: 0.001) {
                bad("calibration.extrinsicMatrix (depth to color, millimetres): \($0)")
            }
            depthToColor = pose
            let baseline = (pose.translation * pose.translation).sum().squareRoot()
            parallax = baseline > 0.0005 || !Self.isIdentity(pose.rotation) ? baseline : nil
        }

        if let c = f.cameraToWorld {
            guard c.count == 4, c.allSatisfy({ $0.count == 4 }), c[0][3] == 0, c[1][3] == 0, c[2][3] == 0, c[3][3] == 1 else {
                throw bad("cameraToWorld must be 4 columns of 4 numbers with a last row of 0 0 0 1")
            }
            pose = try Self.rigidPose(columns: c, translationScale: 1) {
                bad("cameraToWorld: \($0)")
            }
        }
    }

    /// The pose whose rotation is the upper-left 3x3 of the column-major matrix `columns` (4
    /// columns of at least 3 numbers, checked by the caller) and whose translation is the 4th
    /// column times `translationScale`; `failure` with the problem when that is no camera's pose
    /// (`Pose.placementProblem`: not rigid, or a translation out of bounds).
    private static func rigidPose(
        columns m: [[Double]], translationScale: Double,
        failure: (String) -> CloudError
    ) throws -> Pose {
        let pose = Pose(
            rows: (SIMD3(m[0][0], m[1][0], m[2][0]), SIMD3(m[0][1], m[1][1], m[2][1]), SIMD3(m[0][2], m[1][2], m[2][2])),
            translation: SIMD3(m[3][0], m[3][1], m[3][2]) * translationScale)
        if let problem = pose.placementProblem { throw failure(problem) }
        return pose
    }

    /// Resolves a file named in the manifest and checks its length against the manifest's size
    /// (`bytes`, nil for compressed files) without reading it.
    private static func plane(
        _ name: String, key: String, bytes: Int?, what: String, _ directory: String,
        _ bad: (String) -> CloudError
    ) throws -> Plane {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        // Frame files live inside the bundle: a path that could leave it is refused, not followed.
        guard !name.isEmpty, !name.hasPrefix("/"), !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
            throw bad("\(key) '\(name)' must be a path inside the bundle (no leading /, no . or .. parts)")
        }
        let path = BundleSource.path(directory, name)
        let size = try InputFile(path, role: "a frame file named in manifest.json").size
        // Nor through a symbolic link: a bundle received from elsewhere must not make us read
        // (and write into a cloud) a file outside it.
        let folder = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
        guard URL(fileURLWithPath: path).resolvingSymlinksInPath().path.hasPrefix(folder + "/") else {
            throw bad("\(key) '\(name)' leads outside the bundle through a symbolic link")
        }
        if let bytes, size != bytes {
            throw CloudError.badInput(.file(path), "holds \(size) bytes; the manifest's \(what) is \(bytes) bytes")
        }
        return Plane(path: path, bytes: size)
    }

    private static func isIdentity(_ r: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)) -> Bool {
        func near(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Bool {
            let d = a - b
            return max(abs(d.x), abs(d.y), abs(d.z)) < 1e-4  // 0.006 degrees
        }
        return near(r.0, SIMD3(1, 0, 0)) && near(r.1, SIMD3(0, 1, 0)) && near(r.2, SIMD3(0, 0, 1))
    }

    /// The largest |forward(inverse(r)) - r| over the inverse table's radii, in reference pixels,
    /// when it exceeds half a pixel. Tables from one calibration undo each other to a small
    /// fraction of a pixel; swapped tables miss by twice the distortion.
    private static func tableMismatch(_ lens: LensDistortion) -> Double? {
        let n = lens.inverseLookupTable.count
        var worst = 0.0
        for i in 0..<n {
            let r = Double(i) * lens.maxRadius / Double(n - 1)
            let rectified = r * (1 + lens.inverseMagnification(atRadius: r))
            worst = max(worst, abs(rectified * (1 + lens.magnification(atRadius: rectified)) - r))
        }
        return worst > 0.5 ? worst : nil
    }

    func read() throws -> CapturedFrame {
        let depthData = try Self.load(depthPlane)
        let depth = CapturedFrame.Depth(
            width: depthSize.width, height: depthSize.height, encoding: depthEncoding,
            data: depthData, accuracy: accuracy, isFiltered: filtered)
        var color: CapturedFrame.Color?
        if let colorFormat {
            let (w, h) = (colorSize.width, colorSize.height)
            switch colorFormat {
            case .yuv420f, .yuv420v:
                let format = YUVFormat(range: colorFormat == .yuv420f ? .full : .video, matrix: yuvMatrix)
                color = .init(
                    width: w, height: h, layout: .yuv420BiPlanar(format),
                    planes: [try Self.load(colorPlanes[0]), try Self.load(colorPlanes[1])])
            case .bgra:
                color = .init(width: w, height: h, layout: .bgra8, planes: [try Self.load(colorPlanes[0])])
            case .jpeg:
                color = .init(width: w, height: h, layout: .rgb8, planes: [try decodeJPEG().rgb])
            }
        }
        return CapturedFrame(
            depth: depth, color: color, intrinsics: intrinsics, pose: pose, timestamp: timestamp,
            distortion: distortion, depthToColor: depthToColor)
    }

    /// The JPEG color as sRGB, decoded when its frame is read (the only time it is decoded);
    /// CloudImages' decoder names the file when the data is corrupt.
    private func decodeJPEG() throws -> ColorImage {
        let path = colorPlanes[0].path
        let image = try ImageFile.decode(try Self.load(colorPlanes[0]), origin: path).colorImage(origin: path)
        guard image.width == colorSize.width, image.height == colorSize.height else {
            throw CloudError.badInput(.file(path), "decodes to \(image.width)x\(image.height), the manifest says \(colorSize)")
        }
        return image
    }

    /// A frame file's bytes, refusing one that changed length since the bundle was opened.
    private static func load(_ plane: Plane) throws -> [UInt8] {
        let file = try InputFile(plane.path, role: "a frame file named in manifest.json")
        guard file.size == plane.bytes else {
            throw CloudError.badInput(.file(plane.path), "holds \(file.size) bytes, \(plane.bytes) when the bundle was opened")
        }
        return try file.readAll()
    }
}
