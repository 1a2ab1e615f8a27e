import CloudCore
import CloudPCL

/// The filter options as flags on the command line: `--voxel 0.01`, `--voxel=0.01`, `--normals`
/// without its value, in the order given. The options' names, values and defaults are
/// `FilterArguments`', which the service reads too; the flags and their order are the CLI's alone.
enum FilterFlags {
    /// The step a filter flag (with its dashes, "--voxel") and its value stand for.
    private static func step(flag: String, value: String?) throws -> FilterStep {
        if flag == "--filter", let value { return try step(filter: value) }
        return try FilterArguments.step(option: flag.hasPrefix("--") ? String(flag.dropFirst(2)) : flag, value: value)
    }

    /// The step `--filter NAME[=VALUE]` stands for.
    static func step(filter: String) throws -> FilterStep {
        let pair = filter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard FilterKind.named(pair[0])?.listed == true else {
            throw CloudError.badInput(
                .option(CloudError.Option("filter", filter)),
                "\(MessageText.escaped(pair[0])) is not a filter; use \(FilterKind.listed.map(\.name).joined(separator: ", "))")
        }
        return try FilterArguments.step(option: pair[0], value: pair.count == 2 ? pair[1] : nil)
    }

    /// `arguments` with each option of `FilterArguments.optionalValues` given without a value written out with
    /// its default (`--normals` -> `--normals=0.05`), so that the argument parser, which knows no
    /// optional values, and `order(of:)` both see one value per option. The option has a value
    /// when the next argument looks like a number ("0.02", "-1", ".5", "5cm" - which is refused
    /// later with a sensible value - but not "--ply" or "scan.pcd").
    static func withOptionalValues(_ arguments: [String]) -> [String] {
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
            guard token.hasPrefix("--"), let value = FilterArguments.optionalValues[String(token.dropFirst(2))] else { continue }
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
    static func order(of arguments: [String], valued: Set<String>, bare: Set<String>) -> [String] {
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
    static func steps(arguments: [String], values: [String: [String]], bare: Set<String>) throws -> [FilterStep] {
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
            throw CloudError.badInput(
                "cannot tell where \((unplaced + missing).joined(separator: ", ")) stands among the filter flags; give each filter as --flag VALUE or --flag=VALUE"
            )
        }
        return steps
    }
}
