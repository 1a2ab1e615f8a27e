/// Turns an RGBD frame into a point cloud in the camera frame.
public struct BackProjection {
    public struct Options: Sendable {
        /// Depth limits in metres along the optical axis, both inclusive. nil keeps every valid pixel
        /// (no silent far cut-off, unlike Open3D's default 3 m truncation).
        public var range: ClosedRange<Float>?
        /// Keep the depth grid, with NaN points where there is no depth (PCL's organized clouds).
        public var organized: Bool

        public init(range: ClosedRange<Float>? = nil, organized: Bool = false) {
            self.range = range
            self.organized = organized
        }
    }

    /// What happened to the pixels, for `--json` and warnings.
    public struct Counts: Equatable, Codable, Sendable {
        public var pixels: Int
        /// Pixels with depth.
        public var valid: Int
        /// Pixels with depth outside the range limits.
        public var droppedByRange: Int
        /// Points in the cloud that have a position (organized clouds also hold NaN placeholders).
        public var points: Int

        public init(pixels: Int, valid: Int, droppedByRange: Int, points: Int) {
            self.pixels = pixels
            self.valid = valid
            self.droppedByRange = droppedByRange
            self.points = points
        }
    }

    public var options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    /// Depth pixel (u, v) back-projects through the intrinsics scaled to the depth map's size; its
    /// color is the color image's pixel whose footprint holds the depth pixel's centre (both images
    /// are views of one camera at different resolutions, as on phones and registered Kinects).
    public func run(_ frame: RGBDFrame) throws -> (cloud: PointCloud, counts: Counts) {
        let depth = frame.depth
        let (w, h) = (depth.width, depth.height)
        let k = frame.intrinsics.scaled(toWidth: w, height: h)
        try k.validate(origin: "intrinsics scaled to \(w)x\(h)")
        // Per-column and per-row factors: the inner loop is then two multiplies per point. A
        // distorted lens bends each pixel's ray differently, so it needs a factor pair per pixel.
        let xFactor = (0..<w).map { Float((Double($0) - k.cx) / k.fx) }
        let yFactor = (0..<h).map { Float((Double($0) - k.cy) / k.fy) }
        let rays = try frame.distortion.map {
            try RayTable(intrinsics: frame.intrinsics, distortion: $0, width: w, height: h, origin: "lens distortion at \(w)x\(h)")
        }
        let color = frame.color
        let lo = options.range?.lowerBound ?? 0
        let hi = options.range?.upperBound ?? .infinity

        // Bands of rows run in parallel. A first pass counts each band's points so that the second
        // writes straight into final, exactly sized arrays: no compaction copy.
        let rowsPerBand = Swift.max(1, (h + 31) / 32)
        let bands = (h + rowsPerBand - 1) / rowsPerBand
        var bandPoints = [Int](repeating: 0, count: bands)
        var bandValid = [Int](repeating: 0, count: bands)
        depth.metres.withUnsafeBufferPointer { z in
            bandPoints.withUnsafeMutableBufferPointer { pts in
                bandValid.withUnsafeMutableBufferPointer { val in
                    let (pts, val) = (pts, val)
                    Parallel.parts(bands) { b in
                        var (n, valid) = (0, 0)
                        for i in (b * rowsPerBand * w)..<Swift.min((b + 1) * rowsPerBand, h) * w {
                            let d = z[i]
                            guard d > 0 else { continue }
                            valid += 1
                            if d >= lo && d <= hi { n += 1 }
                        }
                        pts[b] = n
                        val[b] = valid
                    }
                }
            }
        }
        let kept = bandPoints.reduce(0, +)
        let valid = bandValid.reduce(0, +)
        let total = options.organized ? w * h : kept
        var bandStart = [Int](repeating: 0, count: bands)
        if !options.organized {
            for b in 1..<Swift.max(bands, 1) { bandStart[b] = bandStart[b - 1] + bandPoints[b - 1] }
        } else {
            for b in 0..<bands { bandStart[b] = b * rowsPerBand * w }
        }

        // Organized clouds start all-NaN and get their valid pixels filled in; unorganized ones are
        // written completely, so they skip the fill.
        var positions =
            options.organized
            ? [Float](repeating: .nan, count: total * 3)
            : [Float](unsafeUninitializedCapacity: total * 3) { _, n in n = total * 3 }
        var colors: [UInt8]? =
            color == nil
            ? nil
            : [UInt8](unsafeUninitializedCapacity: total * 3) { buffer, n in
                // Organized clouds leave pixels without depth untouched: black, not garbage.
                if options.organized { buffer.initialize(repeating: 0) }
                n = total * 3
            }
        let organized = options.organized
        let distorted = rays != nil
        // Color offsets per column and per row, so the inner loop adds two integers per point.
        let colorColumnOffset = color.map { c in (0..<w).map { 3 * Self.sourceIndex($0, from: w, to: c.width) } } ?? []
        let colorRowOffset = color.map { c in (0..<h).map { 3 * c.width * Self.sourceIndex($0, from: h, to: c.height) } } ?? []
        let noColor: [UInt8] = []
        depth.metres.withUnsafeBufferPointer { z in
            xFactor.withUnsafeBufferPointer { xf in
                (rays?.factors ?? []).withUnsafeBufferPointer { rayFactors in
                    colorColumnOffset.withUnsafeBufferPointer { colorColumn in
                        (color?.rgb ?? noColor).withUnsafeBufferPointer { rgbIn in
                            positions.withUnsafeMutableBufferPointer { pos in
                                withOptionalMutableBuffer(&colors) { rgbOut in
                                    let pos = pos
                                    Parallel.parts(bands) { b in
                                        var o = bandStart[b]
                                        for v in (b * rowsPerBand)..<Swift.min((b + 1) * rowsPerBand, h) {
                                            let yf = yFactor[v]
                                            let row = v &* w
                                            let colorRow = rgbOut == nil ? 0 : colorRowOffset[v]
                                            for u in 0..<w {
                                                let d = z[row &+ u]
                                                guard d > 0, d >= lo, d <= hi else {
                                                    if organized { o &+= 1 }
                                                    continue
                                                }
                                                let p = 3 &* o
                                                if distorted {
                                                    let r = 2 &* (row &+ u)
                                                    pos[p] = rayFactors[r] * d
                                                    pos[p &+ 1] = rayFactors[r &+ 1] * d
                                                } else {
                                                    pos[p] = xf[u] * d
                                                    pos[p &+ 1] = yf * d
                                                }
                                                pos[p &+ 2] = d
                                                if let rgbOut {
                                                    let s = colorRow &+ colorColumn[u]
                                                    rgbOut[p] = rgbIn[s]
                                                    rgbOut[p &+ 1] = rgbIn[s &+ 1]
                                                    rgbOut[p &+ 2] = rgbIn[s &+ 2]
                                                }
                                                o &+= 1
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        let grid = organized ? PointCloud.Grid(width: w, height: h) : nil
        let cloud = PointCloud(positions: positions, colors: colors, organized: grid)
        return (cloud, Counts(pixels: w * h, valid: valid, droppedByRange: valid - kept, points: kept))
    }

    /// The index of the pixel, in a row (or column) of `to` pixels, whose footprint holds the centre
    /// of pixel `i` of a row of `from` pixels covering the same field of view.
    static func sourceIndex(_ i: Int, from: Int, to: Int) -> Int {
        Swift.min(to - 1, Int((Double(i) + 0.5) * Double(to) / Double(from)))
    }
}

/// Runs `body` with a mutable buffer over the array when there is one. Concurrent bands write
/// disjoint ranges of the buffer, which is why it is passed as an unsafe pointer.
private func withOptionalMutableBuffer<T, R>(_ array: inout [T]?, _ body: (UnsafeMutableBufferPointer<T>?) -> R) -> R {
    guard array != nil else { return body(nil) }
    return array!.withUnsafeMutableBufferPointer { body($0) }
}
