import CloudCore
import Foundation
import SafeIO

/// What one step did, for `--json` and summaries (summed over the frames of a sequence).
public struct FilterStepReport: Encodable, Equatable, Sendable {
    /// "range", "crop", "voxel", "sor", "radius", "foreground".
    public var name: String
    /// The option and value as given, which each door words its own way.
    public var option: CloudError.Option
    public var parameters: [String: FilterParameter]
    /// Points with finite coordinates before and after the step.
    public var pointsIn: Int
    public var pointsOut: Int
    public var milliseconds: Double

    /// The CLI's wording of the option, `--json`'s `argument`: "--voxel 0.01".
    public var argument: String { option.flag }

    private enum Key: String, CodingKey {
        case name, argument, parameters, pointsIn, pointsOut, milliseconds
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(name, forKey: .name)
        try container.encode(argument, forKey: .argument)
        try container.encode(parameters, forKey: .parameters)
        try container.encode(pointsIn, forKey: .pointsIn)
        try container.encode(pointsOut, forKey: .pointsOut)
        try container.encode(milliseconds, forKey: .milliseconds)
    }
}

/// Filter steps run in the order given, with the organized grid kept exactly as long as it is
/// wanted: to the end with `organized`, or until the last step that needs it (the foreground cut).
public struct FilterPipeline: Sendable {
    public var steps: [FilterStep]
    /// Keep width x height (NaN for dropped pixels) through every step that can (`--organized`).
    public var organized: Bool
    /// The part of memory the steps may take, when less than the process's (a server request's).
    public var memoryShare: MemoryShare?
    /// The CPU time the steps may take, estimated before each step runs (a server request's).
    public var cpuShare: CPUShare?
    /// Asked before each step: true when whoever wanted the result has gone (a server's client),
    /// and the steps end with `CancellationError`.
    public var stop: (@Sendable () -> Bool)?

    public init(steps: [FilterStep], organized: Bool) {
        self.steps = steps
        self.organized = organized
    }

    /// Whether the cloud should arrive organized: it was asked for, or a step needs the grid or
    /// would use it.
    public var wantsGrid: Bool { wantsGrid(from: 0) }

    /// Whether the steps from `index` on want the grid: `organized`, a step that needs it, or a
    /// step that works better on it (normals) before any step that drops it.
    func wantsGrid(from index: Int) -> Bool {
        let rest = steps[index...]
        if organized || rest.contains(where: { $0.filter.needsGrid }) { return true }
        guard let preferring = rest.firstIndex(where: { $0.filter.prefersGrid }) else { return false }
        return !rest[..<preferring].contains { !$0.filter.keepsGrid }
    }

    /// Runs the steps on `cloud`. An organized result stays organized only with `organized`;
    /// without steps the cloud is returned as it came. Notes for the user (a grid the voxel grid
    /// dropped) go to `warnings`.
    public func run(
        _ cloud: PointCloud, viewpoint: Viewpoint = .camera,
        warnings: inout [CloudWarning]
    ) throws -> (cloud: PointCloud, reports: [FilterStepReport]) {
        guard !steps.isEmpty else { return (cloud, []) }
        var cloud = cloud
        var reports: [FilterStepReport] = []
        var points = cloud.finiteCount
        for (index, step) in steps.enumerated() {
            if stop?() == true { throw CancellationError() }
            var watch = Stopwatch()
            if step.filter.needsGrid && cloud.organized == nil {
                let dropper = steps[..<index].last { !$0.filter.keepsGrid }
                throw CloudError.badInput(
                    .option(step.option),
                    dropper.map {
                        "needs the organized grid, which \($0.option) before it dropped (voxels have no pixel grid); put \(step.option) first"
                    } ?? "needs the organized grid, and the cloud has none (it is a plain list of points)")
            }
            // Refused with the figure before a buffer exists, rather than aborting inside PCL.
            try MemoryBudget.require(
                step.filter.workingBytes(points: cloud.count), for: "\(step.filter.name) on \(cloud.count) points",
                about: .option(step.option), within: memoryShare, held: cloud.memoryBytes)
            try cpuShare?.admit(steps[index...], points: cloud.count)
            let keepGrid = wantsGrid(from: index + 1)
            if cloud.organized != nil, !step.filter.keepsGrid, organized {
                warnings.append(
                    CloudWarning(
                        "\(step.option) drops the organized grid (voxel centroids have no pixel); the cloud is unorganized from here on"))
            }
            let (filtered, kept) = try step.filter.apply(to: cloud, keepGrid: keepGrid, viewpoint: viewpoint, option: step.option)
            cloud = filtered
            let ms = watch.lap()
            reports.append(
                FilterStepReport(
                    name: step.filter.name, option: step.option, parameters: step.filter.parameters,
                    pointsIn: points, pointsOut: kept, milliseconds: ms))
            points = kept
        }
        if cloud.organized != nil && !organized {
            // Kept only for the steps that work on the grid: the points without their placeholders.
            let keep = Self.finiteMask(cloud)
            cloud = CloudFilter.select(cloud, keep: keep, kept: points, keepGrid: false)
        }
        return (cloud, reports)
    }

    static func finiteMask(_ cloud: PointCloud) -> [UInt8] {
        cloud.positions.withUnsafeBufferPointer { p in
            (0..<cloud.count).map { i in p[3 * i].isFinite && p[3 * i + 1].isFinite && p[3 * i + 2].isFinite ? 1 : 0 }
        }
    }
}

/// The CPU time a piece of work may take (a server request's), checked against each step's
/// estimate before the step runs.
public struct CPUShare: Sendable {
    public var seconds: Double
    /// Who is limited and the setting that sets it, for the message.
    public var holder: String
    public var setting: String

    public init(seconds: Double, holder: String, setting: String) {
        self.seconds = seconds
        self.holder = holder
        self.setting = setting
    }

    /// The options one after another ("--voxel 0.01 --sor 20,2"), as they are in the CLI's
    /// wording, or that wording shortened in its middle when it is longer than `limit`.
    static func listing(_ options: [CloudError.Option], limit: Int) -> CloudError.Reason {
        let flags = options.map(\.flag).joined(separator: " ")
        guard flags.count <= limit else { return CloudError.Reason(MessageText.shortened(flags, to: limit)) }
        var reason = CloudError.Reason(pieces: [])
        for (i, option) in options.enumerated() {
            if i > 0 { reason.pieces.append(.text(" ")) }
            reason.pieces.append(.option(option))
        }
        return reason
    }

    /// Refuses `steps` when their estimate on `points` points exceeds the share. Each is taken
    /// at the points the first sees: a step rarely adds points, so that bounds the rest.
    public func admit(_ steps: ArraySlice<FilterStep>, points: Int) throws {
        let estimate = steps.reduce(0) { $0 + $1.filter.estimatedNanoseconds(points: points) } / 1e9
        guard estimate > seconds else { return }
        let refusal = String(
            format: ": about %.0f s of CPU on %d points; %@ may take at most %.0f s (%@)", estimate, points, holder, seconds, setting)
        throw CloudError(.budget, subject: nil, Self.listing(steps.map(\.option), limit: 120) + CloudError.Reason(refusal))
    }
}

extension Array where Element == FilterStepReport {
    /// Adds another frame's reports of the same steps.
    public mutating func add(_ other: [FilterStepReport]) {
        guard !isEmpty else {
            self = other
            return
        }
        for i in indices where i < other.count {
            self[i].pointsIn += other[i].pointsIn
            self[i].pointsOut += other[i].pointsOut
            self[i].milliseconds = ((self[i].milliseconds + other[i].milliseconds) * 1e3).rounded() / 1e3
        }
    }
}
