import ArgumentParser
import CloudCore
import CloudPCL
import Foundation

/// The filter flags `capture` and `convert` share (Docs/cli.md, "Filters"). A flag may be given
/// more than once; the steps run in the order they stand on the command line.
///
/// Values are taken as text, whatever they look like (`--crop -1,-1,0,1,1,2` needs that), and
/// judged by `FilterArguments`, whose refusals say what a sensible value would be.
struct FilterOptions: ParsableArguments {
    @Option(
        name: .customLong("filter"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "A filter step, repeatable, run in the order given: \(FilterKind.listed.map(\.name).joined(separator: ", ")), each as its flag below takes it (--filter voxel=0.01, --filter foreground).",
            valueName: "name[=value]"))
    var filter: [String] = []

    @Option(
        name: .customLong("crop"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(FilterKind.crop.summary, valueName: "x0,y0,z0,x1,y1,z1"))
    var crop: [String] = []

    @Option(
        name: .customLong("voxel"), parsing: .unconditionalSingleValue, help: ArgumentHelp(FilterKind.voxel.summary, valueName: "leaf"))
    var voxel: [String] = []

    @Option(name: .customLong("sor"), parsing: .unconditionalSingleValue, help: ArgumentHelp(FilterKind.sor.summary, valueName: "k,stddev"))
    var sor: [String] = []

    @Option(
        name: .customLong("radius"), parsing: .unconditionalSingleValue, help: ArgumentHelp(FilterKind.radius.summary, valueName: "r,min"))
    var radius: [String] = []

    @Option(
        name: .customLong("normals"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(FilterKind.normals.summary, valueName: "radius"))
    var normals: [String] = []

    @Flag(help: ArgumentHelp(FilterKind.foreground.summary))
    var foreground = false

    @Flag(help: "Keep the depth grid: width x height points, NaN where there is none (as PCL's organized clouds).")
    var organized = false

    /// Each valued filter flag's values as ArgumentParser parsed them, by flag. Every listed filter
    /// with a value has its flag here (FilterFlagsTests holds the rows to it), and `--filter` any.
    private var values: [String: [String]] {
        ["--filter": filter, "--crop": crop, "--voxel": voxel, "--sor": sor, "--radius": radius, "--normals": normals]
    }

    /// The steps in command-line order. `arguments` are the raw arguments (ArgumentParser keeps
    /// each flag's values in order, but not the order between flags; with `--filter` alone there
    /// is one flag, and no order to recover); `extra` holds a command's own filter flags
    /// (convert's --range).
    func pipeline(arguments: [String], extra: [String: [String]] = [:]) throws -> FilterPipeline {
        let values = values.merging(extra) { _, command in command }
        let steps: [FilterStep]
        if values.allSatisfy({ $0.key == "--filter" || $0.value.isEmpty }) && !foreground {
            steps = try filter.map(FilterFlags.step(filter:))
        } else {
            steps = try FilterFlags.steps(
                arguments: FilterFlags.withOptionalValues(arguments), values: values, bare: foreground ? ["--foreground"] : [])
        }
        return FilterPipeline(steps: steps, organized: organized)
    }
}

extension FilterStepReport {
    /// "--voxel 0.01: 271575 -> 21627 points (9.8 ms)".
    var summary: String {
        "\(argument): \(pointsIn) -> \(pointsOut) points (\(String(format: "%.1f", milliseconds)) ms)"
    }
}
