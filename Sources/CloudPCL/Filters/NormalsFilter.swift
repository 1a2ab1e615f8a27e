import CloudCore

/// Normals and curvature for every point, fitted within a radius and facing the camera (`Normals`);
/// drops no point. Faster and better on the organized grid, so a pipeline keeps the grid up to
/// this step when it can.
extension FilterKind {
    public static let normals = FilterKind(
        name: "normals", form: "[RADIUS]", defaultValue: CloudFilter.text(CloudFilter.defaultNormalRadius),
        summary:
            "Estimate normals and curvature within RADIUS metres (default 0.05), facing the camera; written as nx ny nz (PLY) / normal_x normal_y normal_z curvature (PCD). On the depth grid when no earlier step drops it.",
        grid: .prefers, listed: true, flagged: true,
        parse: { numbers, bad in
            guard numbers.count == 1, let radius = numbers[0] else {
                throw bad("needs the radius in metres, e.g. 0.05, or no value for \(CloudFilter.text(CloudFilter.defaultNormalRadius))")
            }
            return [Double(Float(radius))]
        },
        problem: { values in
            let radius = Float(values[0])
            guard !(radius.isFinite && radius > 0) else { return nil }
            return "the radius must be a positive number of metres, e.g. 0.05 (5 cm suits room scans; "
                + "3 to 5 times the point spacing suits any cloud)"
        },
        parameters: { ["radius": .number(Float($0[0])), "maxNeighbours": .number(Double(Normals.defaultMaxNeighbours))] },
        nanosecondsPerPoint: { values in
            let radius = Float(values[0])
            return 1400 * Swift.max(1, Double(radius / 0.1) * Double(radius / 0.1))
        },
        bytesPerPoint: { _, _ in 230 },
        run: { values, input in
            var result = input.cloud
            do {
                try Normals.estimate(&result, radius: Float(values[0]), viewpoint: input.viewpoint.origin)
            } catch let error as CloudError {
                throw CloudError.badInput(.option(input.option), error.reason)
            }
            return (result, input.cloud.finiteCount)
        })
}

extension CloudFilter {
    /// `--normals` without a value: 5 cm, which suits room-scale depth frames.
    public static let defaultNormalRadius: Float = 0.05

    public static func normals(radius: Float) -> CloudFilter { CloudFilter(.normals, [Double(radius)]) }
}
