import CShims
import CloudCore

/// The steps that keep what lies within limits: `range` (PCL `PassThrough` on z) and `crop` (PCL
/// `CropBox`, axis-aligned, no transform). Both select points, and cost a comparison a point.
extension FilterKind {
    /// Keeps `min <= z <= max` (either may be infinite).
    public static let range = FilterKind(
        name: "range", form: "MIN,MAX", defaultValue: nil,
        summary: "Keep the points with MIN <= z <= MAX metres (PCL PassThrough on z; MIN may be -inf, MAX inf).",
        grid: .keeps, listed: false, flagged: true,
        parse: { numbers, bad in
            guard numbers.count == 2, let lo = numbers[0], let hi = numbers[1] else {
                throw bad("needs MIN,MAX, the z limits in metres, e.g. 0.5,3 (MAX may be inf)")
            }
            return [lo, hi].map { Double(Float($0)) }
        },
        problem: { values in
            let (min, max) = (Float(values[0]), Float(values[1]))
            if min.isNaN || max.isNaN { return "MIN and MAX must be numbers (MAX may be inf), e.g. 0.5,3" }
            if min > max {
                return "MIN \(min) is more than MAX \(max); the limits read MIN,MAX, e.g. \(CloudFilter.text(max)),\(CloudFilter.text(min))"
            }
            return nil
        },
        parameters: { ["min": .number(Float($0[0])), "max": .number(Float($0[1]))] },
        nanosecondsPerPoint: { _ in 40 }, bytesPerPoint: { _, _ in 50 },
        run: { values, input in
            try shimSelection(input) { shim, view, out, kept, status in
                _ = shim.filter_pass_through_z(view, Float(values[0]), Float(values[1]), out, &kept, &status)
            }
        })

    /// Keeps `min <= p <= max` on every axis.
    public static let crop = FilterKind(
        name: "crop", form: "X0,Y0,Z0,X1,Y1,Z1", defaultValue: nil,
        summary: "Keep the points inside the axis-aligned box from corner X0,Y0,Z0 to X1,Y1,Z1 (metres; PCL CropBox).",
        grid: .keeps, listed: true, flagged: true,
        parse: { numbers, bad in
            let values = numbers.compactMap { $0 }
            guard numbers.count == 6, values.count == 6 else {
                throw bad("needs six numbers X0,Y0,Z0,X1,Y1,Z1, the box's smaller and larger corner in metres, e.g. -1,-1,0,1,1,3")
            }
            return values.map { Double(Float($0)) }
        },
        problem: { values in
            let (min, max) = corners(values)
            if !values.allSatisfy(\.isFinite) { return "all six coordinates must be finite numbers of metres, e.g. -1,-1,0,1,1,3" }
            if let axis = (0..<3).first(where: { min[$0] > max[$0] }) {
                let lo = pointwiseMin(min, max)
                let hi = pointwiseMax(min, max)
                let sorted = [lo.x, lo.y, lo.z, hi.x, hi.y, hi.z].map(CloudFilter.text).joined(separator: ",")
                return "the first corner must be the smaller one on every axis, and on \(["x", "y", "z"][axis]) "
                    + "\(CloudFilter.text(min[axis])) > \(CloudFilter.text(max[axis])); the same box reads \(sorted)"
            }
            return nil
        },
        parameters: { values in
            let (min, max) = corners(values)
            return ["min": .point(min), "max": .point(max)]
        },
        nanosecondsPerPoint: { _ in 40 }, bytesPerPoint: { _, _ in 50 },
        run: { values, input in
            let (min, max) = corners(values)
            return try shimSelection(input) { shim, view, out, kept, status in
                var lo = [min.x, min.y, min.z]
                var hi = [max.x, max.y, max.z]
                _ = shim.filter_crop_box(view, &lo, &hi, out, &kept, &status)
            }
        })

    private static func corners(_ values: [Double]) -> (SIMD3<Float>, SIMD3<Float>) {
        let f = values.map { Float($0) }
        return (SIMD3(f[0], f[1], f[2]), SIMD3(f[3], f[4], f[5]))
    }
}

extension CloudFilter {
    /// PCL `PassThrough` on z: keeps `min <= z <= max` (either may be infinite).
    public static func passThroughZ(min: Float, max: Float) -> CloudFilter { CloudFilter(.range, [Double(min), Double(max)]) }

    /// PCL `CropBox` (axis-aligned, no transform): keeps `min <= p <= max` on every axis.
    public static func cropBox(min: SIMD3<Float>, max: SIMD3<Float>) -> CloudFilter {
        CloudFilter(.crop, [min.x, min.y, min.z, max.x, max.y, max.z].map(Double.init))
    }
}
