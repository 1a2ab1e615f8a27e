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

    /// The CLI's wording: "--voxel 0.01", "--foreground".
    public var label: String { option.flag }
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

    // MARK: - The CLI's flags in argv

    /// The step a filter flag (with its dashes, "--voxel") and its value stand for.
    public static func step(flag: String, value: String?) throws -> FilterStep {
        try step(option: flag.hasPrefix("--") ? String(flag.dropFirst(2)) : flag, value: value)
    }

    /// `arguments` with each option of `optionalValues` given without a value written out with
    /// its default (`--normals` -> `--normals=0.05`), so that the argument parser, which knows no
    /// optional values, and `order(of:)` both see one value per option. The option has a value
    /// when the next argument looks like a number ("0.02", "-1", ".5", "5cm" - which is refused
    /// later with a sensible value - but not "--ply" or "scan.pcd").
    public static func withOptionalValues(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var i = 0
        while i < arguments.count {
            let token = arguments[i]
            result.append(token)
            i += 1
            if token == "--" {
                result += arguments[i...]
                break
            }
            guard token.hasPrefix("--"), let value = optionalValues[String(token.dropFirst(2))] else { continue }
            if i < arguments.count, looksNumeric(arguments[i]) {
                result.append(arguments[i])
                i += 1
            } else {
                result[result.count - 1] = "\(token)=\(value)"
            }
        }
        return result
    }

    private static func looksNumeric(_ token: String) -> Bool {
        let body = token.first == "-" || token.first == "+" ? token.dropFirst() : token[...]
        return Double(token) != nil || body.first.map { $0.isNumber || $0 == "." } ?? false
    }

    /// The occurrences of `valued` options (which take the next argument as their value, whatever
    /// it looks like, so "--crop -1,-1,0,1,1,2" works) and `bare` flags in `arguments`, in order.
    /// "--name=value" counts as the option; "--" ends the options.
    ///
    /// ArgumentParser keeps the values of each option in order but not the order between
    /// different options, which decides what a filter pipeline does ("--voxel 0.01 --sor 20,2" is
    /// not "--sor 20,2 --voxel 0.01").
    public static func order(of arguments: [String], valued: Set<String>, bare: Set<String>) -> [String] {
        var found: [String] = []
        var i = 0
        while i < arguments.count {
            let token = arguments[i]
            i += 1
            if token == "--" { break }
            if valued.contains(token) {
                found.append(token)
                i += 1
            } else if bare.contains(token) {
                found.append(token)
            } else if let equals = token.firstIndex(of: "="), valued.contains(String(token[..<equals])) {
                found.append(String(token[..<equals]))
            }
        }
        return found
    }

    /// The steps in command-line order: `values` holds each valued flag's values in the order
    /// ArgumentParser parsed them, `bare` the bare flags that were set.
    public static func steps(arguments: [String], values: [String: [String]], bare: Set<String>) throws -> [FilterStep] {
        let order = order(of: arguments, valued: Set(values.keys), bare: bare)
        var next = values.mapValues { $0[...] }
        var steps: [FilterStep] = []
        for flag in order {
            if bare.contains(flag) {
                steps.append(try step(flag: flag, value: nil))
            } else if let value = next[flag]?.popFirst() {
                steps.append(try step(flag: flag, value: value))
            }
        }
        // The scan and the parser must agree on every value, or the order would be a guess.
        let unplaced = next.filter { !$0.value.isEmpty }.keys.sorted()
        let missing = bare.filter { !order.contains($0) }.sorted()
        if !(unplaced + missing).isEmpty {
            throw CloudError.badInput("cannot tell where \((unplaced + missing).joined(separator: ", ")) stands among the filter flags; give each filter as --flag VALUE or --flag=VALUE")
        }
        return steps
    }
}
