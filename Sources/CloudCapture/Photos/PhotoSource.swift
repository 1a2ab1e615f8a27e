import CloudCore
import CloudImages

/// A photo with depth (`--source photo:FILE`): an iPhone's portrait photo as HEIC or JPEG, whose
/// depth is an 8-bit disparity (or depth) image with Apple's XMP (`DepthPhoto`). It gives one frame:
/// the stored values mapped onto the XMP's float range, the intrinsics at their reference size,
/// the lens distortion from the XMP's coefficients, all turned by the photo's orientation.
///
/// Portrait disparity is "relative" (Apple's depthData:Accuracy): it orders points correctly but
/// has no known scale. Such a frame says so (its depth accuracy, a warning) unless
/// `--known-distance` names a pixel's true distance, which scales it to metres. `--matte` keeps
/// only the pixels the photo's portrait effects matte marks as its subject.
public final class PhotoSource: DepthSource {
    public let path: String
    public let knowsPose = false
    public private(set) var warnings: [CloudWarning] = []
    public var knownFrameCount: Int? { 1 }
    public var name: String { "photo:\(path)" }
    /// Read once, when the source is made, so that every problem shows before any output exists.
    private var frame: CapturedFrame?

    /// A matte value at or above this marks the subject (the matte is 0 background ... 255 subject).
    static let matteThreshold: UInt8 = 128

    public init(path: String, options: SourceOptions = SourceOptions()) throws {
        self.path = path
        let photo = try DepthPhoto.read(path, withMatte: options.matte)
        if options.matte && !photo.hasMatte {
            throw CloudError.badInput(.file(path), "\(option: "matte"): the photo has no portrait effects matte")
        }
        let metadata = photo.metadata
        let (dw, dh) = (photo.depth.width, photo.depth.height)
        guard case .uint8(let stored) = photo.depth.samples else { throw CloudError.badInput(.file(path), "the depth image is not 8-bit") }
        // Disparity or depth in the XMP's units; 0 means none (zero disparity is infinitely far).
        var values = stored.map { Float(metadata.value(Double($0))) }
        if let matte = photo.matte, case .uint8(let mask) = matte.samples {
            Self.keepSubject(&values, width: dw, height: dh, matte: mask, matteWidth: matte.width, matteHeight: matte.height)
        }
        let orientation = photo.orientation
        let turned = orientation.apply(values, width: dw, height: dh)
        let color = orientation.apply(photo.color.rgb, width: photo.color.width, height: photo.color.height, channels: 3)
        let intrinsics = orientation.apply(metadata.intrinsics)
        let distortion = metadata.distortion.map(orientation.apply)

        var planeValues = turned.pixels
        var accuracy = metadata.accuracy
        if let known = options.knownDistance {
            let scale = try Self.scale(
                turned.pixels, width: turned.width, height: turned.height, format: metadata.nativeFormat,
                intrinsics: intrinsics, distortion: distortion, colorWidth: color.width,
                colorHeight: color.height, known: known, origin: path)
            planeValues = planeValues.map { metadata.nativeFormat == .disparity ? $0 / Float(scale) : $0 * Float(scale) }
            warnings.append(
                CloudWarning(
                    .source("photo:\(path)"),
                    "depth scaled by \(Self.format(scale)) so that pixel \(known.x),\(known.y) lies \(known.metres) m away (\(option: "known-distance")); the cloud is as metric as that distance"
                ))
            accuracy = .absolute
        } else if accuracy == .relative {
            warnings.append(
                CloudWarning(
                    .source("photo:\(path)"),
                    "depth accuracy is relative (portrait disparity has no known scale): the cloud's units are not metres; \(option: "known-distance", "X,Y=METRES") scales it"
                ))
        }
        if photo.orientation.value != 1 {
            warnings.append(
                CloudWarning(
                    .source("photo:\(path)"), "EXIF orientation \(photo.orientation.value) applied to color, depth and calibration"))
        }
        // A little-endian Float32 plane, as DepthMap reads them.
        var data = [UInt8](repeating: 0, count: 4 * planeValues.count)
        data.withUnsafeMutableBytes { out in
            for (i, value) in planeValues.enumerated() {
                out.storeBytes(of: value.bitPattern.littleEndian, toByteOffset: 4 * i, as: UInt32.self)
            }
        }
        let depth = CapturedFrame.Depth(
            width: turned.width, height: turned.height,
            encoding: metadata.nativeFormat == .disparity ? .disparityFloat32 : .depthFloat32,
            data: data, accuracy: accuracy, isFiltered: metadata.isFiltered)
        frame = CapturedFrame(
            depth: depth, color: CapturedFrame.Color(width: color.width, height: color.height, layout: .rgb8, planes: [color.pixels]),
            intrinsics: intrinsics, pose: nil, timestamp: 0, distortion: distortion)
    }

    public func nextFrame() throws -> CapturedFrame? {
        defer { frame = nil }
        return frame
    }

    /// Clears the values outside the subject, sampling the matte at each depth pixel's centre.
    static func keepSubject(_ values: inout [Float], width: Int, height: Int, matte: [UInt8], matteWidth: Int, matteHeight: Int) {
        for y in 0..<height {
            let my = min(matteHeight - 1, (y * matteHeight + matteHeight / 2) / height)
            for x in 0..<width {
                let mx = min(matteWidth - 1, (x * matteWidth + matteWidth / 2) / width)
                if matte[my * matteWidth + mx] < matteThreshold { values[y * width + x] = 0 }
            }
        }
    }

    /// The factor that takes the photo's depth to metres: the known distance over the distance the
    /// photo gives at that pixel (the median of its 3x3 depth neighbourhood, along the pixel's ray).
    static func scale(
        _ values: [Float], width: Int, height: Int, format: AppleDepthMetadata.NativeFormat,
        intrinsics: CameraIntrinsics, distortion: LensDistortion?, colorWidth: Int, colorHeight: Int,
        known: KnownDistance, origin: String
    ) throws -> Double {
        guard known.x < colorWidth, known.y < colorHeight else {
            throw CloudError.badInput(
                .file(origin), "\(option: "known-distance") pixel \(known.x),\(known.y) lies outside the \(colorWidth)x\(colorHeight) photo"
            )
        }
        // The depth pixel whose footprint holds the color pixel's centre.
        let u = min(width - 1, Int((Double(known.x) + 0.5) * Double(width) / Double(colorWidth)))
        let v = min(height - 1, Int((Double(known.y) + 0.5) * Double(height) / Double(colorHeight)))
        var near: [Double] = []
        for y in max(0, v - 1)...min(height - 1, v + 1) {
            for x in max(0, u - 1)...min(width - 1, u + 1) where values[y * width + x] > 0 {
                near.append(format == .disparity ? 1 / Double(values[y * width + x]) : Double(values[y * width + x]))
            }
        }
        guard !near.isEmpty else {
            throw CloudError.badInput(.file(origin), "\(option: "known-distance") pixel \(known.x),\(known.y) has no depth around it")
        }
        let z = near.sorted()[near.count / 2]
        let k = intrinsics.scaled(toWidth: width, height: height)
        let p = distortion?.rectify(SIMD2(Double(u), Double(v)), width: width, height: height) ?? SIMD2(Double(u), Double(v))
        let ray = SIMD3((p.x - k.cx) / k.fx, (p.y - k.cy) / k.fy, 1)
        return known.metres / (z * (ray * ray).sum().squareRoot())
    }

    static func format(_ value: Double) -> String {
        let rounded = (value * 10000).rounded() / 10000
        return "\(rounded)"
    }
}
