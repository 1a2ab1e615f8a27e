import CloudCore
import CloudFiles
import CloudPCL

/// A cloud file read, filtered and checked, then written again. `convert`, the service's
/// conversions and its filtered exports all convert files this way, so that what becomes of a
/// file does not depend on the door it came in by. Only a cloud that passed the check can be
/// written; the writing is a step of its own so that the CLI can land its files together
/// (`OutputSet.all`) while a signal before it ends the process as usual.
public struct CloudConversion {
    /// How a door refuses a cloud that a step emptied: given the input, the step, and the points
    /// the step was given.
    public typealias Refusal = (_ input: String, _ step: FilterStep, _ points: Int) -> Error

    /// Each filter step's counts and time, in order.
    public let reports: [FilterStepReport]
    private let cloud: PointCloud
    /// The file's viewpoint and units, which the outputs keep.
    private let header: CloudFileHeader

    /// Reads `input` and runs `filters` on its cloud as seen from where it was captured; a cloud
    /// that a step emptied is refused (`refusal`; by default bad input about the file, naming the
    /// step). What does not carry over (fields no channel holds, a mesh's faces, a grid that
    /// cannot be kept) is noted in `warnings` before the steps' own notes.
    public init(_ input: String, filters: FilterPipeline, warnings: inout [CloudWarning], refusal: Refusal = nothingToWrite) throws {
        let loaded = try CloudReader.read(input)
        // Nothing is dropped silently.
        if !loaded.ignoredFields.isEmpty {
            warnings.append(
                CloudWarning(
                    .file(input),
                    "fields \(loaded.ignoredFields.joined(separator: " ")) are not carried over (cloudgen keeps positions, colors, normals and curvature)"
                ))
        }
        for element in loaded.header.otherElements where element.name != "camera" {
            warnings.append(
                CloudWarning(.file(input), "element \(element.name) (\(element.count)) is not carried over (cloudgen writes points only)"))
        }
        if filters.organized && loaded.cloud.organized == nil {
            warnings.append(
                CloudWarning(.file(input), "\(switch: "organized") has no grid to keep: the file is not organized (its height is 1)"))
        }
        // As seen from where it was captured: a world-frame capture's camera (the file's viewpoint)
        // is what normals face and what the foreground cut measures depth from; a file without
        // one was seen from the origin.
        let viewpoint = loaded.header.viewpoint.map { Viewpoint(pose: $0) } ?? .camera
        let (cloud, reports) = try filters.run(loaded.cloud, viewpoint: viewpoint, warnings: &warnings)
        if let empty = reports.firstIndex(where: { $0.pointsOut == 0 }) {
            throw refusal(input, filters.steps[empty], reports[empty].pointsIn)
        }
        self.cloud = cloud
        header = loaded.header
        self.reports = reports
    }

    /// Writes the cloud to each of `outputs` with the file's viewpoint and units; the points
    /// written to each.
    public func write(to outputs: [(path: String, format: CloudFileFormat)]) throws -> [Int] {
        try outputs.map {
            try CloudWriter.write(
                cloud, to: $0.path, format: $0.format, viewpoint: header.viewpoint, relativeUnits: header.relativeUnits)
        }
    }

    /// `convert`'s refusal: "IN: no points to write: --voxel 2 kept none of its 5 points".
    public static func nothingToWrite(_ input: String, _ step: FilterStep, _ points: Int) -> Error {
        CloudError.badInput(.file(input), "no points to write: \(step.option) kept none of its \(points) points")
    }
}
