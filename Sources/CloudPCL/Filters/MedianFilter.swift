import CloudCore

/// A median filter on the depth grid, the point-cloud form of PCL's `MedianFilter` for organized
/// clouds: each point's depth (along the optical axis, from the viewpoint) becomes the median of
/// the valid depths in the SIZE x SIZE window around its pixel, and the point moves along its own
/// ray to that depth, so that its pixel, and its color, stay where they were. Isolated speckles
/// (flying pixels, multipath spikes) go; a plane, tilted or not, stays where it was, since the
/// median of a window over a linear ramp is its centre. Drops no point.
extension FilterKind {
    public static let median = FilterKind(
        name: "median", form: "[SIZE]", defaultValue: "3",
        summary:
            "Replace each point's depth by the median of its SIZE x SIZE pixel window (odd, default 3) along its own ray; needs the depth grid.",
        grid: .needs, listed: true,
        parse: { numbers, bad in
            guard numbers.count == 1, let size = numbers[0], Int(exactly: size) != nil else {
                throw bad("needs the window's side in pixels, an odd whole number, e.g. 3 (or no value for 3)")
            }
            return [size]
        },
        problem: { values in
            let size = Int(values[0])
            return size >= 3 && size <= 15 && size % 2 == 1 ? nil : "the window's side must be odd and 3 to 15 pixels, e.g. 3 or 5"
        },
        parameters: { ["size": .number($0[0])] },
        // A sort of SIZE^2 depths a point (measured on the TUM frame's grid, release build).
        nanosecondsPerPoint: { values in 30 * values[0] * values[0] },
        bytesPerPoint: { _, _ in 16 },
        run: { values, input in
            guard let grid = input.cloud.organized else {
                throw CloudError.badInput(
                    .option(input.option), "needs an organized cloud (a width x height depth grid), and this one is a plain list of points")
            }
            return (medianDepth(input.cloud, grid: grid, size: Int(values[0]), viewpoint: input.viewpoint), input.cloud.finiteCount)
        })

    private static func medianDepth(_ cloud: PointCloud, grid: PointCloud.Grid, size: Int, viewpoint: Viewpoint) -> PointCloud {
        let (width, height, half) = (grid.width, grid.height, size / 2)
        let origin = viewpoint.origin
        // Each pixel's depth along the axis; NaN where there is no point.
        let depth: [Float] = cloud.positions.withUnsafeBufferPointer { p in
            (0..<width * height).map { i in
                let point = SIMD3(p[3 * i], p[3 * i + 1], p[3 * i + 2])
                return point.x.isFinite && point.y.isFinite && point.z.isFinite ? ((point - origin) * viewpoint.axis).sum() : .nan
            }
        }
        var result = cloud
        result.positions.withUnsafeMutableBufferPointer { p in
            var window: [Float] = []
            window.reserveCapacity(size * size)
            for y in 0..<height {
                for x in 0..<width {
                    let i = y * width + x
                    let d = depth[i]
                    guard d.isFinite, d > 0 else { continue }
                    window.removeAll(keepingCapacity: true)
                    for v in max(0, y - half)...min(height - 1, y + half) {
                        for u in max(0, x - half)...min(width - 1, x + half) where depth[v * width + u].isFinite {
                            window.append(depth[v * width + u])
                        }
                    }
                    window.sort()
                    let median =
                        window.count % 2 == 1
                        ? window[window.count / 2] : (window[window.count / 2 - 1] + window[window.count / 2]) / 2
                    let scale = median / d
                    for axis in 0..<3 { p[3 * i + axis] = origin[axis] + (p[3 * i + axis] - origin[axis]) * scale }
                }
            }
        }
        return result
    }
}
