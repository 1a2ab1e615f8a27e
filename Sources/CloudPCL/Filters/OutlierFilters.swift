import CShims
import CloudCore

/// PCL's two outlier removals, each a neighbour search a point: `sor` (StatisticalOutlierRemoval)
/// and `radius` (RadiusOutlierRemoval). Their time grows with the neighbours searched: k, or the
/// square of the radius on a surface (the TUM frame's per-point times: 248,250 points, 2-core CI
/// machine, release build).
extension FilterKind {
    /// Drops points whose mean distance to their `k` nearest neighbours exceeds the mean of those
    /// distances by more than `stddev` standard deviations.
    public static let sor = FilterKind(
        name: "sor", form: "K,STDDEV", defaultValue: nil,
        summary:
            "Drop points whose mean distance to their K nearest neighbours is more than STDDEV standard deviations above the mean (PCL StatisticalOutlierRemoval).",
        grid: .keeps, listed: true, flagged: true,
        parse: { numbers, bad in
            guard numbers.count == 2, let k = numbers[0], let stddev = numbers[1] else {
                throw bad("needs K,STDDEV: neighbours to average over and the standard-deviation multiplier, e.g. 20,2")
            }
            guard Int(exactly: k) != nil else { throw bad("K must be a whole number of neighbours, e.g. 20,2") }
            return [k, stddev]
        },
        problem: { values in
            if Int(values[0]) < 1 { return "K (neighbours to average over) must be at least 1; 20 to 50 suits depth frames, e.g. 20,2" }
            if !values[1].isFinite { return "STDDEV must be a finite multiplier of the standard deviation, e.g. 2 (1 to 3 are usual)" }
            return nil
        },
        parameters: { ["k": .number($0[0]), "stddev": .number($0[1])] },
        nanosecondsPerPoint: { 150 * Swift.max($0[0], 1) },
        // A point has at most points - 1 neighbours (a larger K is refused by the filter itself).
        bytesPerPoint: { values, points in 40 + 8 * Swift.min(Int(values[0]), points) },
        run: { values, input in
            try shimSelection(input) { shim, view, out, kept, status in
                _ = shim.filter_statistical_outliers(view, Int32(clamping: Int(values[0])), values[1], out, &kept, &status)
            }
        })

    /// Keeps points with at least `min` others within `radius` metres.
    public static let radius = FilterKind(
        name: "radius", form: "R,MIN", defaultValue: nil,
        summary: "Drop points with fewer than MIN other points within R metres (PCL RadiusOutlierRemoval).",
        grid: .keeps, listed: true, flagged: true,
        parse: { numbers, bad in
            guard numbers.count == 2, let radius = numbers[0], let minimum = numbers[1] else {
                throw bad("needs R,MIN: a radius in metres and the neighbours a point needs within it, e.g. 0.05,5")
            }
            guard Int(exactly: minimum) != nil else { throw bad("MIN must be a whole number of neighbours, e.g. \(radius),5") }
            return [radius, minimum]
        },
        problem: { values in
            let (radius, minNeighbours) = (values[0], Int(values[1]))
            if !(radius.isFinite && radius > 0) { return "R must be a positive number of metres, e.g. 0.05,5 (5 neighbours within 5 cm)" }
            if minNeighbours < 0 {
                return "MIN (neighbours a point needs within R) must be 0 or more, e.g. \(CloudFilter.text(Float(radius))),5"
            }
            return nil
        },
        parameters: { ["radius": .number($0[0]), "min": .number($0[1])] },
        nanosecondsPerPoint: { values in 300 * Swift.max(1, (values[0] / 0.05) * (values[0] / 0.05)) },
        bytesPerPoint: { _, _ in 60 },
        run: { values, input in
            try shimSelection(input) { shim, view, out, kept, status in
                _ = shim.filter_radius_outliers(view, values[0], Int32(clamping: Int(values[1])), out, &kept, &status)
            }
        })
}

extension CloudFilter {
    public static func statisticalOutliers(k: Int, stddevMultiplier: Double) -> CloudFilter {
        CloudFilter(.sor, [Double(k), stddevMultiplier])
    }

    public static func radiusOutliers(radius: Double, minNeighbours: Int) -> CloudFilter {
        CloudFilter(.radius, [radius, Double(minNeighbours)])
    }
}
