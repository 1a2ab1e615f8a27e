import CloudCore

/// A filter step as the user asked for it: the option and value as given (for messages and
/// reports, which each door words its own way) and the filter they mean.
public struct FilterStep: Equatable, Sendable {
    /// voxel 0.01, foreground.
    public var option: CloudError.Option
    public var filter: CloudFilter

    public init(option: CloudError.Option, filter: CloudFilter) {
        self.option = option
        self.filter = filter
    }
}

/// The filter options' syntax, shared by every door that filters (the CLI's flags, the
/// service's fields):
///
///     range MIN,MAX                   PassThrough on z (MIN may be -inf, MAX inf)
///     crop X0,Y0,Z0,X1,Y1,Z1          CropBox
///     voxel LEAF                      VoxelGrid
///     sor K,STDDEV                    StatisticalOutlierRemoval
///     radius R,MIN                    RadiusOutlierRemoval
///     foreground                      the foreground cut (no value)
///     normals [RADIUS]                normals and curvature (RADIUS defaults to 0.05)
///
/// Values are read leniently and judged by `CloudFilter.problem`, so that every refusal can say
/// what a sensible value would be.
public enum FilterArguments {
    /// The filter `option` (named without dashes) and `value` stand for; a `CloudError.badInput`
    /// about the option and value when the value is malformed or its parameters would not work.
    /// An option of `optionalValues` without a value takes its default.
    public static func step(option name: String, value: String?) throws -> FilterStep {
        let value = value ?? optionalValues[name]
        let option = name == "foreground" ? CloudError.Option.switch(name) : CloudError.Option(name, value)
        let numbers = value.map { $0.split(separator: ",", omittingEmptySubsequences: false).map { Double($0) } } ?? []
        func bad(_ what: String) -> CloudError { CloudError.badInput(.option(option), CloudError.Reason(what)) }
        let filter: CloudFilter
        switch name {
        case "range":
            guard numbers.count == 2, let lo = numbers[0], let hi = numbers[1] else {
                throw bad("needs MIN,MAX, the z limits in metres, e.g. 0.5,3 (MAX may be inf)")
            }
            filter = .passThroughZ(min: Float(lo), max: Float(hi))
        case "crop":
            let values = numbers.compactMap { $0 }
            guard numbers.count == 6, values.count == 6 else {
                throw bad("needs six numbers X0,Y0,Z0,X1,Y1,Z1, the box's smaller and larger corner in metres, e.g. -1,-1,0,1,1,3")
            }
            let f = values.map { Float($0) }
            filter = .cropBox(min: SIMD3(f[0], f[1], f[2]), max: SIMD3(f[3], f[4], f[5]))
        case "voxel":
            guard numbers.count == 1, let leaf = numbers[0] else { throw bad("needs the leaf size in metres, e.g. 0.01 (1 cm)") }
            filter = .voxelGrid(leaf: Float(leaf))
        case "sor":
            guard numbers.count == 2, let k = numbers[0], let stddev = numbers[1] else {
                throw bad("needs K,STDDEV: neighbours to average over and the standard-deviation multiplier, e.g. 20,2")
            }
            guard let k = Int(exactly: k) else { throw bad("K must be a whole number of neighbours, e.g. 20,2") }
            filter = .statisticalOutliers(k: k, stddevMultiplier: stddev)
        case "radius":
            guard numbers.count == 2, let radius = numbers[0], let minimum = numbers[1] else {
                throw bad("needs R,MIN: a radius in metres and the neighbours a point needs within it, e.g. 0.05,5")
            }
            guard let minimum = Int(exactly: minimum) else {
                throw bad("MIN must be a whole number of neighbours, e.g. \(radius),5")
            }
            filter = .radiusOutliers(radius: radius, minNeighbours: minimum)
        case "foreground":
            filter = .foreground
        case "normals":
            guard numbers.count == 1, let radius = numbers[0] else {
                throw bad("needs the radius in metres, e.g. 0.05, or no value for \(CloudFilter.text(CloudFilter.defaultNormalRadius))")
            }
            filter = .normals(radius: Float(radius))
        default:
            throw CloudError.badInput(.option(CloudError.Option(name)), "is not a filter option")
        }
        if let problem = filter.problem { throw bad(problem) }
        return FilterStep(option: option, filter: filter)
    }

    /// Options whose value may be left out, with the value that stands for it.
    public static let optionalValues = ["normals": CloudFilter.text(CloudFilter.defaultNormalRadius)]
}
