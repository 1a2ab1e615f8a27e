/// YUV 4:2:0 bi-planar (NV12: a full-size Y plane, then a half-size plane of interleaved Cb Cr),
/// the layout of AVFoundation's kCVPixelFormatType_420YpCbCr8BiPlanarFullRange ('420f') and
/// VideoRange ('420v') buffers.
public struct YUVFormat: Equatable, Sendable {
    public enum Range: String, Sendable {
        /// Y, Cb, Cr use 0...255 ('420f', JPEG).
        case full
        /// Y uses 16...235 and Cb, Cr 16...240 ('420v', broadcast video).
        case video
    }

    public enum Matrix: String, Sendable {
        /// ITU-R BT.601 (SD video, JPEG): Kr = 0.299, Kb = 0.114.
        case bt601
        /// ITU-R BT.709 (HD video, phone cameras): Kr = 0.2126, Kb = 0.0722.
        case bt709
    }

    public var range: Range
    public var matrix: Matrix

    public init(range: Range, matrix: Matrix) {
        self.range = range
        self.matrix = matrix
    }

    var kr: Float { matrix == .bt601 ? 0.299 : 0.2126 }
    var kb: Float { matrix == .bt601 ? 0.114 : 0.0722 }

    /// The code values of an sRGB color, rounded: the inverse of `rgb(y:cb:cr:)`. Used by the
    /// simulated camera so that its color takes the same path as a phone's.
    public func ycbcr(r: UInt8, g: UInt8, b: UInt8) -> (y: UInt8, cb: UInt8, cr: UInt8) {
        let (r, g, b) = (Float(r) / 255, Float(g) / 255, Float(b) / 255)
        let y = kr * r + (1 - kr - kb) * g + kb * b
        let pb = (b - y) / (2 * (1 - kb))
        let pr = (r - y) / (2 * (1 - kr))
        let (ys, yo, cs): (Float, Float, Float) = range == .full ? (255, 0, 255) : (219, 16, 224)
        return (Self.code(y * ys + yo), Self.code(pb * cs + 128), Self.code(pr * cs + 128))
    }

    /// sRGB of one Y Cb Cr sample, rounded and clamped to 0...255.
    @inline(__always)
    public func rgb(y: UInt8, cb: UInt8, cr: UInt8) -> (UInt8, UInt8, UInt8) {
        let c = coefficients
        let yy = (Float(y) - c.yOffset) * c.yScale
        let pb = (Float(cb) - 128) * c.cScale
        let pr = (Float(cr) - 128) * c.cScale
        let r = yy + c.rFromCr * pr
        let g = yy - c.gFromCb * pb - c.gFromCr * pr
        let b = yy + c.bFromCb * pb
        return (Self.code(r), Self.code(g), Self.code(b))
    }

    struct Coefficients {
        var yOffset, yScale, cScale, rFromCr, gFromCb, gFromCr, bFromCb: Float
    }

    /// Scales take code values to 0...255 luma and -127.5...127.5 chroma; the four products come
    /// from inverting Y = Kr R + Kg G + Kb B with Pb = (B - Y) / (2 (1 - Kb)), Pr = (R - Y) / (2 (1 - Kr)).
    var coefficients: Coefficients {
        let kg = 1 - kr - kb
        return Coefficients(
            yOffset: range == .full ? 0 : 16,
            yScale: range == .full ? 1 : 255 / 219,
            cScale: range == .full ? 1 : 255 / 224,
            rFromCr: 2 * (1 - kr),
            gFromCb: 2 * (1 - kb) * kb / kg,
            gFromCr: 2 * (1 - kr) * kr / kg,
            bFromCb: 2 * (1 - kb))
    }

    /// Rounds half up and clamps to 0...255. Adding 0.5 and truncating equals `rounded()` on the
    /// clamped, non-negative value, without a libm call per sample.
    @inline(__always) static func code(_ v: Float) -> UInt8 {
        UInt8(max(0, min(255, v)) + 0.5)
    }
}

/// Per-code-value terms of `YUVFormat.rgb(y:cb:cr:)`, so that converting a whole image is three
/// table look-ups and four additions per pixel. Each entry is computed with the same operations in
/// the same order as `rgb(y:cb:cr:)`, so both give bit-identical results.
struct YUVTables {
    var luma = [Float](repeating: 0, count: 256)
    var redFromCr = [Float](repeating: 0, count: 256)
    var greenFromCb = [Float](repeating: 0, count: 256)
    var greenFromCr = [Float](repeating: 0, count: 256)
    var blueFromCb = [Float](repeating: 0, count: 256)

    init(_ format: YUVFormat) {
        let c = format.coefficients
        for v in 0..<256 {
            let chroma = (Float(v) - 128) * c.cScale
            luma[v] = (Float(v) - c.yOffset) * c.yScale
            redFromCr[v] = c.rFromCr * chroma
            greenFromCb[v] = c.gFromCb * chroma
            greenFromCr[v] = c.gFromCr * chroma
            blueFromCb[v] = c.bFromCb * chroma
        }
    }
}

extension ColorImage {
    /// Converts a 4:2:0 bi-planar image. Each chroma sample covers a 2x2 block of luma (odd sizes
    /// round the chroma plane up); strides allow padded rows as in CVPixelBuffer planes.
    public init(
        yPlane: UnsafeRawBufferPointer, yBytesPerRow: Int? = nil,
        cbcrPlane: UnsafeRawBufferPointer, cbcrBytesPerRow: Int? = nil,
        width: Int, height: Int, format: YUVFormat, origin: String
    ) throws {
        try ImageLimits.check(width: width, height: height, origin: origin)
        let (cw, ch) = ((width + 1) / 2, (height + 1) / 2)
        let yStride = yBytesPerRow ?? width
        let cStride = cbcrBytesPerRow ?? cw * 2
        try Self.checkPlane(yPlane.count, rows: height, rowBytes: width, stride: yStride, what: "Y plane", origin: origin)
        try Self.checkPlane(cbcrPlane.count, rows: ch, rowBytes: cw * 2, stride: cStride, what: "CbCr plane", origin: origin)
        let t = YUVTables(format)
        var out = [UInt8](repeating: 0, count: width * height * 3)
        out.withUnsafeMutableBufferPointer { dst in
            t.luma.withUnsafeBufferPointer { luma in
                t.redFromCr.withUnsafeBufferPointer { rCr in
                    t.greenFromCb.withUnsafeBufferPointer { gCb in
                        t.greenFromCr.withUnsafeBufferPointer { gCr in
                            t.blueFromCb.withUnsafeBufferPointer { bCb in
                                let dst = dst
                                // Rows are independent; bands of rows keep both cores busy on 1920x1440 frames.
                                let rowsPerBand = 32
                                Parallel.parts((height + rowsPerBand - 1) / rowsPerBand) { band in
                                    for y in (band * rowsPerBand)..<Swift.min(height, (band + 1) * rowsPerBand) {
                                        let yRow = y * yStride
                                        let cRow = (y / 2) * cStride
                                        var d = y * width * 3
                                        for x in 0..<width {
                                            let c = cRow + (x / 2) * 2
                                            let (cb, cr) = (Int(cbcrPlane[c]), Int(cbcrPlane[c + 1]))
                                            let yy = luma[Int(yPlane[yRow + x])]
                                            dst[d] = YUVFormat.code(yy + rCr[cr])
                                            dst[d + 1] = YUVFormat.code(yy - gCb[cb] - gCr[cr])
                                            dst[d + 2] = YUVFormat.code(yy + bCb[cb])
                                            d += 3
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        self.init(width: width, height: height, rgb: out)
    }
}
