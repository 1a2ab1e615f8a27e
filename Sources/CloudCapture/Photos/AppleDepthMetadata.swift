import CloudCore
import CloudImages

/// What Apple's XMP says about a photo's depth image (the depthData and apdi namespaces that
/// Image I/O writes with an auxiliary depth or disparity image): how its stored integers map to
/// disparity or depth, the intrinsics at their reference size, and the lens distortion.
public struct AppleDepthMetadata: Equatable, Sendable {
    static let depthData = "http://ns.apple.com/depthData/1.0/"
    static let pixelDataInfo = "http://ns.apple.com/pixeldatainfo/1.0/"

    /// What the mapped values are: apdi:NativeFormat, a Core Video pixel format code.
    public enum NativeFormat: Equatable, Sendable {
        /// 'hdis', 'fdis': disparity, 1/m.
        case disparity
        /// 'hdep', 'fdep': depth, m.
        case depth
    }

    /// Stored integers IntMinValue...IntMaxValue map linearly onto FloatMinValue...FloatMaxValue.
    public var intRange: ClosedRange<Double>
    public var floatMin: Double
    public var floatMax: Double
    public var nativeFormat: NativeFormat
    /// depthData:Accuracy: "relative" disparity has no known scale.
    public var accuracy: CapturedFrame.Depth.Accuracy
    public var isFiltered: Bool
    public var intrinsics: CameraIntrinsics
    /// Nil when the XMP gives no distortion coefficients.
    public var distortion: LensDistortion?

    /// Reads the properties Apple writes; a missing or malformed one is bad input naming `origin`.
    public init(_ xmp: XMPPacket, origin: String) throws {
        func bad(_ problem: String) -> CloudError { .badInput(.file(origin), "depth XMP: \(problem)") }
        func numbers(_ namespace: String, _ name: String, count: Int? = nil) throws -> [Double]? {
            guard let values = xmp.values(namespace, name) else { return nil }
            let parsed = values.compactMap { Double($0) }
            guard parsed.count == values.count, parsed.allSatisfy(\.isFinite) else {
                throw bad("\(name) is \(values.prefix(9).joined(separator: ", ")), not finite numbers")
            }
            if let count, parsed.count != count { throw bad("\(name) has \(parsed.count) values, not \(count)") }
            return parsed
        }
        func number(_ namespace: String, _ name: String) throws -> Double {
            guard let value = try numbers(namespace, name, count: 1)?[0] else { throw bad("no \(name)") }
            return value
        }
        let p = Self.pixelDataInfo
        let d = Self.depthData

        let intMin = try number(p, "IntMinValue")
        let intMax = try number(p, "IntMaxValue")
        guard intMin < intMax else { throw bad("IntMinValue \(intMin) is not below IntMaxValue \(intMax)") }
        intRange = intMin...intMax
        floatMin = try number(p, "FloatMinValue")
        floatMax = try number(p, "FloatMaxValue")
        guard floatMin <= floatMax else { throw bad("FloatMinValue \(floatMin) is above FloatMaxValue \(floatMax)") }
        let format = try number(p, "NativeFormat")
        switch UInt32(exactly: format).map(Self.fourCharacterCode) {
        case "hdis", "fdis": nativeFormat = .disparity
        case "hdep", "fdep": nativeFormat = .depth
        default: throw bad("NativeFormat \(format) is not a depth or disparity format ('hdis', 'fdis', 'hdep', 'fdep')")
        }
        guard floatMin >= 0 else { throw bad("FloatMinValue \(floatMin) is negative, which no \(nativeFormat) is") }

        switch xmp.values(d, "Accuracy")?.first?.lowercased() {
        case "absolute": accuracy = .absolute
        case "relative", nil: accuracy = .relative  // Without a word on it, no scale is known.
        case let other?: throw bad("Accuracy '\(other)' is not absolute or relative")
        }
        isFiltered = xmp.values(d, "Filtered")?.first?.lowercased() == "true"

        guard let matrix = try numbers(d, "IntrinsicMatrix", count: 9) else { throw bad("no IntrinsicMatrix") }
        let width = try number(d, "IntrinsicMatrixReferenceWidth")
        let height = try number(d, "IntrinsicMatrixReferenceHeight")
        guard let w = Int(exactly: width), let h = Int(exactly: height), w > 0, h > 0, w <= ImageLimits.maxSide, h <= ImageLimits.maxSide
        else {
            throw bad("the intrinsics' reference size \(width)x\(height) is not an image size")
        }
        // Column-major, as simd_float3x3 is stored: fx 0 0 | 0 fy 0 | cx cy 1.
        guard matrix[1] == 0, matrix[2] == 0, matrix[5] == 0, matrix[8] == 1 else {
            throw bad("IntrinsicMatrix \(matrix) is not a pinhole camera matrix (column-major, last entry 1)")
        }
        // Taken as the capture bundle takes AVFoundation's matrix (BundleSource): principal point as given.
        intrinsics = CameraIntrinsics(
            fx: matrix[0], fy: matrix[4], cx: matrix[6], cy: matrix[7],
            referenceWidth: w, referenceHeight: h)
        try intrinsics.validate(origin: "\(origin): depth XMP IntrinsicMatrix")

        let forward = try numbers(d, "LensDistortionCoefficients")
        let inverse = try numbers(d, "InverseLensDistortionCoefficients")
        if let forward, let inverse {
            let centre = SIMD2(try number(d, "LensDistortionCenterOffsetX"), try number(d, "LensDistortionCenterOffsetY"))
            let pixelSize = try number(d, "PixelSize")
            distortion = try ApplePolynomialLens(forward: forward, inverse: inverse, pixelSize: pixelSize)
                .tables(center: centre, referenceWidth: w, referenceHeight: h, origin: "\(origin): depth XMP")
        }
    }

    /// The value stored integer `v` stands for (disparity in 1/m or depth in m, per `nativeFormat`).
    public func value(_ v: Double) -> Double {
        floatMin + (v - intRange.lowerBound) / (intRange.upperBound - intRange.lowerBound) * (floatMax - floatMin)
    }

    static func fourCharacterCode(_ code: UInt32) -> String {
        String(decoding: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: code >> $0) }, as: UTF8.self)
    }
}
