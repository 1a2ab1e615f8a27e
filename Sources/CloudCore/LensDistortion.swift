/// Radial lens distortion in the lookup-table form AVFoundation delivers it
/// (AVCameraCalibrationData's `lensDistortionCenter`, `lensDistortionLookupTable` and
/// `inverseLensDistortionLookupTable`).
///
/// A table holds the relative radial magnification m at radii spaced evenly from 0 to `maxRadius`,
/// the distance from the distortion centre c to the farthest image corner. A point p moves along
/// its radius to c + (p - c)(1 + m(|p - c|)), with m interpolated linearly between entries and
/// equal to the last entry beyond `maxRadius`. The forward table takes an ideal (rectified) point
/// to where the lens images it; the inverse table takes a pixel as captured (distorted) to its
/// rectified position, which is what back-projection needs.
///
/// The centre is in pixels of the reference dimensions, the same coordinates as the intrinsics'
/// principal point and in the same pixel-centre convention (`CameraIntrinsics`): the image spans
/// -0.5 ... W - 0.5, so the corners that bound the radius are the outer corners of the corner
/// pixels. That is the radius Apple's reference code computes (max(cx, W - cx) with corner-origin
/// coordinates), so tables written by a phone are read with the radii they were made for.
public struct LensDistortion: Equatable, Sendable {
    /// Distortion centre in reference-dimension pixels.
    public var center: SIMD2<Double>
    public var referenceWidth: Int
    public var referenceHeight: Int
    /// Rectified -> distorted magnifications.
    public var lookupTable: [Double]
    /// Distorted -> rectified magnifications.
    public var inverseLookupTable: [Double]

    /// Apple's tables have 42 entries; a table needs two to interpolate, and more than this many
    /// would be a corrupt file rather than a finer calibration.
    public static let tableSizes = 2...4096

    public init(
        center: SIMD2<Double>, referenceWidth: Int, referenceHeight: Int,
        lookupTable: [Double], inverseLookupTable: [Double]
    ) {
        self.center = center
        self.referenceWidth = referenceWidth
        self.referenceHeight = referenceHeight
        self.lookupTable = lookupTable
        self.inverseLookupTable = inverseLookupTable
    }

    /// Refuses what would give NaN, fold the image over itself or divide by zero. `origin` names
    /// where the calibration came from, for the message.
    public func validate(origin: String) throws {
        func bad(_ what: String) -> CloudError { .badInput("\(origin): lens distortion \(what)") }
        guard referenceWidth > 0, referenceHeight > 0, referenceWidth <= 65536, referenceHeight <= 65536 else {
            throw bad("reference dimensions \(referenceWidth)x\(referenceHeight) are not a plausible image size")
        }
        guard center.x.isFinite, center.y.isFinite,
            center.x >= -0.5, center.x <= Double(referenceWidth) - 0.5,
            center.y >= -0.5, center.y <= Double(referenceHeight) - 0.5
        else {
            throw bad("centre (\(center.x), \(center.y)) lies outside the \(referenceWidth)x\(referenceHeight) image")
        }
        for (name, table) in [("lookup table", lookupTable), ("inverse lookup table", inverseLookupTable)] {
            guard Self.tableSizes.contains(table.count) else {
                throw bad("\(name) has \(table.count) entries, expected \(Self.tableSizes.lowerBound)...\(Self.tableSizes.upperBound)")
            }
            // 1 + m must stay positive: at m <= -1 a radius would shrink to the centre or flip.
            if let i = table.firstIndex(where: { !($0.isFinite && $0 > -1) }) {
                throw bad("\(name) entry \(i) is \(table[i]); magnifications must be finite and above -1")
            }
        }
    }

    /// The distance from the centre to the farthest corner of the reference image.
    public var maxRadius: Double {
        let dx = Swift.max(center.x + 0.5, Double(referenceWidth) - 0.5 - center.x)
        let dy = Swift.max(center.y + 0.5, Double(referenceHeight) - 0.5 - center.y)
        return (dx * dx + dy * dy).squareRoot()
    }

    /// m at `radius` from a table over 0 ... `maxRadius`.
    @inline(__always)
    static func magnification(_ table: [Double], radius: Double, maxRadius: Double) -> Double {
        let n = table.count
        guard radius < maxRadius else { return table[n - 1] }
        let position = radius * Double(n - 1) / maxRadius
        // Rounding can put a radius just below the end onto the last entry; interpolate in the last interval.
        let i = Swift.min(Int(position), n - 2)
        let f = position - Double(i)
        return (1 - f) * table[i] + f * table[i + 1]
    }

    /// The relative magnification the forward table gives at `radius` reference pixels.
    public func magnification(atRadius radius: Double) -> Double {
        Self.magnification(lookupTable, radius: radius, maxRadius: maxRadius)
    }

    /// The relative magnification the inverse table gives at `radius` reference pixels.
    public func inverseMagnification(atRadius radius: Double) -> Double {
        Self.magnification(inverseLookupTable, radius: radius, maxRadius: maxRadius)
    }

    /// Where the lens images the ideal (rectified) reference-pixel position `p`.
    public func distort(_ p: SIMD2<Double>) -> SIMD2<Double> {
        move(p, lookupTable)
    }

    /// The rectified position of the captured (distorted) reference-pixel position `p`.
    public func rectify(_ p: SIMD2<Double>) -> SIMD2<Double> {
        move(p, inverseLookupTable)
    }

    /// `rectify` for a position in an image of `width` x `height` pixels of the same camera, e.g.
    /// a depth map below the reference resolution. The position is taken to the reference image
    /// with the intrinsics' scaling (image edges onto image edges), rectified there, and brought
    /// back, so the radial model holds in reference pixels even when the image's aspect differs.
    public func rectify(_ p: SIMD2<Double>, width: Int, height: Int) -> SIMD2<Double> {
        let toReference = SIMD2(Double(referenceWidth) / Double(width), Double(referenceHeight) / Double(height))
        let r = rectify((p + 0.5) * toReference - 0.5)
        return (r + 0.5) / toReference - 0.5
    }

    @inline(__always)
    private func move(_ p: SIMD2<Double>, _ table: [Double]) -> SIMD2<Double> {
        let d = p - center
        let radius = (d * d).sum().squareRoot()
        return center + d * (1 + Self.magnification(table, radius: radius, maxRadius: maxRadius))
    }
}

/// The ray through the centre of every pixel of a `width` x `height` depth map, as the factors
/// x/z and y/z: a pixel with depth z back-projects to (x/z * z, y/z * z, z). Without distortion
/// these are BackProjection's per-column and per-row factors, bit for bit; with it each pixel's
/// ray is that of its rectified position, which no per-row and per-column product can express.
///
/// Color needs no such correction. The color image comes through the same lens, so its
/// distortion is the same function of position, only scaled to its resolution: the color pixel
/// at the depth pixel's own (distorted) position shows the same scene point. Sampling color on
/// the distorted grids, as BackProjection does, is therefore right; rectifying only the depth
/// side would be what breaks it.
public struct RayTable: Sendable {
    public let width: Int
    public let height: Int
    /// Interleaved x/z, y/z per pixel, row-major: `2 * width * height` values.
    public let factors: [Float]

    public init(intrinsics: CameraIntrinsics, distortion: LensDistortion?, width: Int, height: Int, origin: String) throws {
        try ImageLimits.check(width: width, height: height, origin: origin)
        try intrinsics.validate(origin: origin)
        try distortion?.validate(origin: origin)
        let k = intrinsics.scaled(toWidth: width, height: height)
        var factors = [Float](repeating: 0, count: 2 * width * height)
        factors.withUnsafeMutableBufferPointer { out in
            for v in 0..<height {
                for u in 0..<width {
                    let p = SIMD2(Double(u), Double(v))
                    let q = distortion?.rectify(p, width: width, height: height) ?? p
                    let i = 2 * (v * width + u)
                    // Same expression as BackProjection's factors, so an undistorted frame gives the same floats.
                    out[i] = Float((q.x - k.cx) / k.fx)
                    out[i + 1] = Float((q.y - k.cy) / k.fy)
                }
            }
        }
        self.width = width
        self.height = height
        self.factors = factors
    }
}
