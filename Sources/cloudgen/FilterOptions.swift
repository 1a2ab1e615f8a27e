import ArgumentParser
import CloudPCL

/// The filter flags `capture` and `convert` share (Docs/cli.md, "Filters"). A flag may be given
/// more than once; the steps run in the order they stand on the command line.
///
/// Values are taken as text, whatever they look like (`--crop -1,-1,0,1,1,2` needs that), and
/// judged by `FilterArguments`, whose refusals say what a sensible value would be.
struct FilterOptions: ParsableArguments {
    @Option(
        name: .customLong("crop"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "Keep the points inside the axis-aligned box from corner X0,Y0,Z0 to X1,Y1,Z1 (metres; PCL CropBox).",
            valueName: "x0,y0,z0,x1,y1,z1"))
    var crop: [String] = []

    @Option(
        name: .customLong("voxel"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "Downsample to one point per LEAF-metre voxel at the centroid of its points, colors averaged (PCL VoxelGrid).",
            valueName: "leaf"))
    var voxel: [String] = []

    @Option(
        name: .customLong("sor"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "Drop points whose mean distance to their K nearest neighbours is more than STDDEV standard deviations above the mean (PCL StatisticalOutlierRemoval).",
            valueName: "k,stddev"))
    var sor: [String] = []

    @Option(
        name: .customLong("radius"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "Drop points with fewer than MIN other points within R metres (PCL RadiusOutlierRemoval).",
            valueName: "r,min"))
    var radius: [String] = []

    @Option(
        name: .customLong("normals"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            "Estimate normals and curvature within RADIUS metres (default 0.05), facing the camera; written as nx ny nz (PLY) / normal_x normal_y normal_z curvature (PCD). On the depth grid when no earlier step drops it.",
            valueName: "radius"))
    var normals: [String] = []

    @Flag(help: "Keep the connected surface nearest to the camera; drop what lies behind a depth gap (Docs/cli.md has the rule).")
    var foreground = false

    @Flag(help: "Keep the depth grid: width x height points, NaN where there is none (as PCL's organized clouds).")
    var organized = false

    /// The steps in command-line order. `arguments` are the raw arguments (ArgumentParser keeps
    /// each flag's values in order, but not the order between flags); `extra` holds a command's
    /// own filter flags (convert's --range).
    func pipeline(arguments: [String], extra: [String: [String]] = [:]) throws -> FilterPipeline {
        var values = ["--crop": crop, "--voxel": voxel, "--sor": sor, "--radius": radius, "--normals": normals]
        values.merge(extra) { _, command in command }
        let steps = try FilterFlags.steps(
            arguments: FilterFlags.withOptionalValues(arguments), values: values,
            bare: foreground ? ["--foreground"] : [])
        return FilterPipeline(steps: steps, organized: organized)
    }
}

extension FilterStepReport {
    /// "--voxel 0.01: 271575 -> 21627 points (9.8 ms)".
    var summary: String {
        "\(argument): \(pointsIn) -> \(pointsOut) points (\(String(format: "%.1f", milliseconds)) ms)"
    }
}
