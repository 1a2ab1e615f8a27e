extension ColorImage {
    /// The colors a depth map of `width` x `height` sees, converted straight from the raw planes:
    /// for each depth pixel, the color pixel whose footprint holds its centre (the mapping
    /// `BackProjection` samples with). A phone frame back-projects 49,152 depth pixels against
    /// 2.76 million color pixels; converting only those turns ~9 ms of YUV conversion into ~0.1 ms,
    /// and the cloud's colors are bit-identical to sampling the fully converted image.
    public init(decoding c: CapturedFrame.Color, sampledAt width: Int, height: Int, origin: String) throws {
        try ImageLimits.check(width: width, height: height, origin: origin)
        try ImageLimits.check(width: c.width, height: c.height, origin: origin)
        func plane(_ i: Int, rowBytes: Int, rows: Int, what: String) throws -> [UInt8] {
            guard i < c.planes.count else { throw CloudError.badInput("\(origin): color plane \(i) is missing") }
            try Self.checkPlane(c.planes[i].count, rows: rows, rowBytes: rowBytes, stride: rowBytes, what: what, origin: origin)
            return c.planes[i]
        }
        // Color already at the depth size samples every pixel: RGB8 (datasets, registered
        // cameras) is the answer as it is, the array shared rather than copied, and any other
        // layout goes through the whole-image converter, which is faster per pixel.
        if c.width == width && c.height == height {
            if c.layout == .rgb8 {
                self.init(width: width, height: height, rgb: try plane(0, rowBytes: width * 3, rows: height, what: "color plane"))
            } else {
                try self.init(decoding: c, origin: origin)
            }
            return
        }
        let columns = (0..<width).map { BackProjection.sourceIndex($0, from: width, to: c.width) }
        let rows = (0..<height).map { BackProjection.sourceIndex($0, from: height, to: c.height) }
        var out = [UInt8](repeating: 0, count: width * height * 3)
        switch c.layout {
        case .rgb8, .bgra8:
            let bytesPerPixel = c.layout == .rgb8 ? 3 : 4
            let (r, b) = c.layout == .rgb8 ? (0, 2) : (2, 0)
            let src = try plane(0, rowBytes: c.width * bytesPerPixel, rows: c.height, what: "color plane")
            var d = 0
            for y in rows {
                for x in columns {
                    let s = (y * c.width + x) * bytesPerPixel
                    out[d] = src[s + r]
                    out[d + 1] = src[s + 1]
                    out[d + 2] = src[s + b]
                    d += 3
                }
            }
        case .yuv420BiPlanar(let format):
            let luma = try plane(0, rowBytes: c.width, rows: c.height, what: "Y plane")
            let chromaWidth = (c.width + 1) / 2
            let chroma = try plane(1, rowBytes: chromaWidth * 2, rows: (c.height + 1) / 2, what: "CbCr plane")
            var d = 0
            for y in rows {
                for x in columns {
                    let s = (y / 2) * chromaWidth * 2 + (x / 2) * 2
                    (out[d], out[d + 1], out[d + 2]) = format.rgb(y: luma[y * c.width + x], cb: chroma[s], cr: chroma[s + 1])
                    d += 3
                }
            }
        }
        self.init(width: width, height: height, rgb: out)
    }
}
