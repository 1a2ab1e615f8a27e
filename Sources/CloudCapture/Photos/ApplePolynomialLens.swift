import CloudCore

/// Lens distortion as Apple's depth XMP stores it: LensDistortionCoefficients and
/// InverseLensDistortionCoefficients, 8 coefficients each of a polynomial in the distance from the
/// distortion centre. Apple documents the lookup-table form (AVCameraCalibrationData) but not these
/// coefficients, which are, as Apple's forum says, "a more compact way of storing the data needed
/// to generate the lookup table". cloudgen reads them as the magnification in percent at a radius
/// in millimetres on the sensor (pixels × depthData:PixelSize, in mm): the reading under which the
/// iPhone 13 Pro's wide camera has -1.6 % barrel distortion at its corners and the iPhone X's
/// telephoto +0.4 %, and under which the two polynomials undo each other to within 3 % of the
/// distortion over the whole image (checked on both real photos in PhotoSourceTests).
struct ApplePolynomialLens {
    var forward: [Double]
    var inverse: [Double]
    /// Millimetres per reference pixel.
    var pixelSize: Double

    /// The entries of the lookup tables made from the polynomials; AVFoundation's tables have 42.
    static let tableSize = 42

    /// The relative magnification (a fraction) at `radius` reference pixels.
    static func magnification(_ coefficients: [Double], radius: Double, pixelSize: Double) -> Double {
        let r = radius * pixelSize
        return coefficients.reversed().reduce(0) { $0 * r + $1 } / 100
    }

    func tables(center: SIMD2<Double>, referenceWidth: Int, referenceHeight: Int, origin: String) throws -> LensDistortion {
        guard !forward.isEmpty, forward.count <= 32, inverse.count == forward.count else {
            throw CloudError.badInput(
                .file(origin), "the lens distortion coefficients number \(forward.count) and \(inverse.count), not the same 1...32")
        }
        guard pixelSize > 0, pixelSize < 1 else {
            throw CloudError.badInput(.file(origin), "PixelSize \(pixelSize) mm is not a sensor's pixel size")
        }
        var lens = LensDistortion(
            center: center, referenceWidth: referenceWidth, referenceHeight: referenceHeight,
            lookupTable: [], inverseLookupTable: [])
        let radii = (0..<Self.tableSize).map { Double($0) * lens.maxRadius / Double(Self.tableSize - 1) }
        lens.lookupTable = radii.map { Self.magnification(forward, radius: $0, pixelSize: pixelSize) }
        lens.inverseLookupTable = radii.map { Self.magnification(inverse, radius: $0, pixelSize: pixelSize) }
        try lens.validate(origin: origin)
        return lens
    }
}
