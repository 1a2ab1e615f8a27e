import CloudCore

/// `manifest.json` of a capture bundle, as stored (schema in Docs/formats.md, "Capture bundle").
/// Names and matrix layouts follow AVFoundation (AVDepthData, AVCameraCalibrationData), so that
/// a phone app can write what it is handed without converting anything. Matrices are arrays of
/// columns (column-major, as simd stores them). Reading checks the shapes; `BundleSource`
/// checks the values.
struct BundleManifest: Codable {
    static let formatName = "cloudgen-capture-bundle"
    static let currentVersion = 1
    static let fileName = "manifest.json"

    var format: String
    @WholeNumber var version: Int
    var frames: [Frame]

    struct Frame: Codable {
        /// Seconds, in the capturing device's clock.
        var timestamp: Double
        var depth: Depth
        var color: Color?
        var calibration: Calibration
        /// Camera to world, 4 columns of 4, metres: a posed capture (ARKit's camera transform
        /// converted to the camera axes of Docs/formats.md, or the simulator's exact pose).
        var cameraToWorld: [[Double]]?
    }

    struct Depth: Codable {
        /// Relative to the bundle directory.
        var file: String
        /// `DepthFormat` raw value.
        var format: String
        @WholeNumber var width: Int
        @WholeNumber var height: Int
        /// "absolute" or "relative" (AVDepthData.depthDataAccuracy).
        var accuracy: String
        /// AVDepthData.isDepthDataFiltered.
        var filtered: Bool
    }

    struct Color: Codable {
        /// Relative to the bundle directory: Y then CbCr for the YUV formats, one file otherwise.
        var files: [String]
        /// `ColorFormat` raw value.
        var format: String
        @WholeNumber var width: Int
        @WholeNumber var height: Int
        /// YUV formats only: "bt709" (phone camera buffers, and the default) or "bt601".
        var yCbCrMatrix: String?
    }

    struct Calibration: Codable {
        /// [[fx, 0, 0], [0, fy, 0], [ox, oy, 1]]: the columns of AVCameraCalibrationData's intrinsicMatrix.
        var intrinsicMatrix: [[Double]]
        var referenceDimensions: Dimensions
        /// [x, y] in reference-dimension pixels; comes with both tables.
        var lensDistortionCenter: [Double]?
        var lensDistortionLookupTable: [Double]?
        var inverseLensDistortionLookupTable: [Double]?
        /// Depth camera to color camera, 4 columns of 3: [R | t], t in millimetres (AVFoundation's unit).
        var extrinsicMatrix: [[Double]]?
    }

    struct Dimensions: Codable {
        @WholeNumber var width: Int
        @WholeNumber var height: Int
    }
}

/// An integer field. Foundation's decoder calls a fractional or out-of-range number in an `Int`
/// field "not valid JSON" without saying where; reading a number and checking it names the field.
@propertyWrapper
struct WholeNumber: Codable {
    var wrappedValue: Int

    init(wrappedValue: Int) {
        self.wrappedValue = wrappedValue
    }

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let number = try container.decode(Double.self)
        guard let value = Int(exactly: number) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected a whole number, not \(number)")
        }
        wrappedValue = value
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}

/// Depth plane formats: AVFoundation's four (kCVPixelFormatType_DepthFloat16 ...).
enum BundleDepthFormat: String, CaseIterable {
    case depthFloat16, depthFloat32, disparityFloat16, disparityFloat32

    var encoding: DepthEncoding {
        switch self {
        case .depthFloat16: return .depthFloat16
        case .depthFloat32: return .depthFloat32
        case .disparityFloat16: return .disparityFloat16
        case .disparityFloat32: return .disparityFloat32
        }
    }
}

/// Color formats: the two bi-planar YUV ranges ('420f', '420v'), 32-bit BGRA, or a JPEG file.
enum BundleColorFormat: String, CaseIterable {
    case yuv420f, yuv420v, bgra, jpeg

    /// Each file's extension, in order.
    var extensions: [String] {
        switch self {
        case .yuv420f, .yuv420v: return ["y", "cbcr"]
        case .bgra: return ["bgra"]
        case .jpeg: return ["jpg"]
        }
    }
}

extension BundleManifest.Calibration {
    /// The calibration of a frame as the writer stores it.
    init(_ frame: CapturedFrame) {
        let k = frame.intrinsics
        intrinsicMatrix = [[k.fx, 0, 0], [0, k.fy, 0], [k.cx, k.cy, 1]]
        referenceDimensions = .init(width: k.referenceWidth, height: k.referenceHeight)
        if let d = frame.distortion {
            lensDistortionCenter = [d.center.x, d.center.y]
            lensDistortionLookupTable = d.lookupTable
            inverseLensDistortionLookupTable = d.inverseLookupTable
        }
        extrinsicMatrix = frame.depthToColor.map { pose in
            let r = pose.rotation
            let columns = (0..<3).map { j in [r.0[j], r.1[j], r.2[j]] }
            return columns + [[pose.translation.x * 1000, pose.translation.y * 1000, pose.translation.z * 1000]]
        }
    }
}

extension Pose {
    /// The 4x4 homogeneous matrix as 4 columns of 4.
    var columnMajorMatrix: [[Double]] {
        let r = rotation
        return (0..<3).map { j in [r.0[j], r.1[j], r.2[j], 0] } + [[translation.x, translation.y, translation.z, 1]]
    }
}
