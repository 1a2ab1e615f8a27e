import CloudCore

/// One kind of filter step, as every door presents it and as it runs: its name (the CLI's
/// `--voxel` and `--filter voxel=...`, the service's `voxel` field and `filters` entries), its
/// value's form, default and help line, how it treats an organized cloud's grid, the grammar its
/// value is read by and the problem its parameters can have (each refusal says what would work),
/// its parameters for reports, its cost and memory estimates, and the call that runs it.
/// `FilterKind.all` is the one table: `FilterArguments`, the CLI's flags, the service's fields
/// (`OptionCatalogue`), its work limits and the pipeline read it, and tests hold the OpenAPI
/// document, the page and Docs/cli.md to it. A new filter is one file in Filters/ with its row,
/// and the row's place in `all`.
public struct FilterKind: Sendable {
    /// What a step does to an organized cloud's depth grid.
    public enum Grid: Sendable {
        /// Selects points: dropped pixels become NaN, as PCL's `setKeepOrganized` leaves them.
        case keeps
        /// Makes new points (voxel centroids), which have no pixel.
        case drops
        /// Works on the grid, and refuses a cloud without one.
        case needs
        /// Works better on the grid, but takes any cloud.
        case prefers
    }

    public let name: String
    /// The value's form in help: "LEAF", "K,STDDEV"; nil for a step that takes none (a switch).
    public let form: String?
    /// The value a step given without one takes; nil when the value is required.
    public let defaultValue: String?
    /// A line of help, for the CLI's flags and the docs.
    public let summary: String
    public let grid: Grid
    /// Whether the doors list it among the filters by its own name: `range` is each door's depth
    /// range (`--range`, the `range` field) instead, a step only where a file is filtered.
    public let listed: Bool
    /// Whether the CLI has a flag of its own for it (`--voxel`, and `convert --range`), beside
    /// `--filter voxel=...`: the filters that had one before `--filter`; a new one is `--filter` alone.
    public var flagged = false
    /// The value's numbers (nil where one is not a number) to the step's values, or an error from `bad`
    /// naming the grammar.
    let parse: @Sendable (_ numbers: [Double?], _ bad: (String) -> CloudError) throws -> [Double]
    /// What is wrong with the values themselves, with a value that would work; nil when they are fine.
    let problem: @Sendable ([Double]) -> String?
    /// The values by name, for reports.
    let parameters: @Sendable ([Double]) -> [String: FilterParameter]
    /// Roughly the nanoseconds a point of input takes on one core (a server holds a request's steps
    /// to its CPU share with this before running them).
    let nanosecondsPerPoint: @Sendable ([Double]) -> Double
    /// Peak bytes a point of input takes beyond the cloud itself, for a cloud of `points` points.
    let bytesPerPoint: @Sendable (_ values: [Double], _ points: Int) -> Int
    /// Runs the step.
    let run: @Sendable (_ values: [Double], _ input: FilterInput) throws -> (cloud: PointCloud, kept: Int)

    public static func named(_ name: some StringProtocol) -> FilterKind? {
        all.first { $0.name == name }
    }

    /// The kinds the doors list as filters, in the table's order.
    public static var listed: [FilterKind] { all.filter(\.listed) }

    public static let all: [FilterKind] = [.range, .crop, .voxel, .sor, .radius, .normals, .foreground, .median]
}

/// What a step runs on: the cloud, whether to keep its grid, where its camera stood, and the option
/// as asked for (which its errors are about).
struct FilterInput {
    var cloud: PointCloud
    var keepGrid: Bool
    var viewpoint: Viewpoint
    var option: CloudError.Option
}

/// One filter step's kind and values.
///
/// Every step drops points with a non-finite coordinate, as PCL's filters do. Steps that select
/// points can keep an organized cloud's grid (dropped pixels become NaN, as PCL's
/// `setKeepOrganized` does); the voxel grid makes new points and cannot.
public struct CloudFilter: Equatable, Sendable, CustomStringConvertible {
    public let kind: FilterKind
    public let values: [Double]

    init(_ kind: FilterKind, _ values: [Double]) {
        self.kind = kind
        self.values = values
    }

    public static func == (a: CloudFilter, b: CloudFilter) -> Bool {
        a.kind.name == b.kind.name && a.values == b.values
    }

    /// A short name for reports: "range", "crop", "voxel", "sor", "radius", "foreground", "normals".
    public var name: String { kind.name }

    public var description: String { "\(name)(\(values.map { "\($0)" }.joined(separator: ",")))" }

    /// Whether an organized cloud can stay organized through this step.
    public var keepsGrid: Bool { kind.grid != .drops }

    /// Whether the step works on the organized grid (and refuses clouds without one).
    public var needsGrid: Bool { kind.grid == .needs }

    /// Whether the step works better on the organized grid, but takes any cloud.
    public var prefersGrid: Bool { kind.grid == .prefers }

    /// What is wrong with the parameters themselves, with a value that would work; nil when they
    /// are fine. (Problems that depend on the cloud, such as a voxel leaf too small for its size,
    /// are found when the step runs.)
    public var problem: String? { kind.problem(values) }

    /// The parameters by name, for reports.
    public var parameters: [String: FilterParameter] { kind.parameters(values) }

    /// Roughly how long the step takes on `points` input points on one core (see each row).
    public func estimatedNanoseconds(points: Int) -> Double {
        kind.nanosecondsPerPoint(values) * Double(points)
    }

    /// Peak memory a step takes on `points` input points, beyond the cloud itself: its copy of
    /// the points into PCL's or the neighbour index's layout, its neighbour lists, the selection
    /// mask and the gathered result (measured with /usr/bin/time on the grabber and Redwood clouds).
    public func workingBytes(points: Int) -> Int {
        let perPoint = kind.bytesPerPoint(values, points)
        return points.multipliedReportingOverflow(by: perPoint).overflow ? .max : points * perPoint
    }

    /// Runs the step on `cloud` and returns the result with the number of points it kept.
    ///
    /// With `keepGrid`, an organized cloud stays organized through steps that select points: the
    /// dropped pixels get NaN positions (and normals) and black colors, as back-projection leaves
    /// pixels without depth. Otherwise the kept points are gathered into an unorganized cloud.
    /// The voxel grid always returns an unorganized cloud.
    ///
    /// Errors are `CloudError.badInput` about `option` (the step as asked for, e.g. voxel
    /// 0.00001) that say what would work.
    public func apply(
        to cloud: PointCloud, keepGrid: Bool = false, viewpoint: Viewpoint = .camera, option: CloudError.Option
    ) throws -> (cloud: PointCloud, kept: Int) {
        if let problem { throw CloudError.badInput(.option(option), CloudError.Reason(problem)) }
        return try kind.run(values, FilterInput(cloud: cloud, keepGrid: keepGrid, viewpoint: viewpoint, option: option))
    }

    /// The shortest text that reads back as `value` (e.g. 0.1, not 0.100000001).
    static func text(_ value: Float) -> String {
        value == value.rounded() && abs(value) < 1e7 ? String(Int(value)) : "\(value)"
    }

    /// The shortest text of a value stored from a Float.
    static func text(_ value: Double) -> String { text(Float(value)) }
}

/// A filter parameter in a report: a number, or a point (x, y, z).
public enum FilterParameter: Equatable, Sendable, Encodable {
    case number(Double)
    case point(SIMD3<Float>)

    /// A float parameter as the decimal it was written as (0.02, not 0.019999999552965164).
    static func number(_ value: Float) -> FilterParameter { .number(decimal(value)) }

    static func decimal(_ value: Float) -> Double { value.isFinite ? Double("\(value)") ?? Double(value) : Double(value) }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case let .number(value): try container.encode(value)
        case let .point(p): try container.encode([p.x, p.y, p.z].map(Self.decimal))
        }
    }
}
