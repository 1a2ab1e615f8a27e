import CloudCore
import CloudFiles
import CloudPCL

extension FilterPipeline {
    /// Runs the steps on a file's cloud as seen from where it was captured: the file's viewpoint
    /// (a world-frame capture's camera) is what normals face and what `--foreground` measures
    /// depth from; a file without one was seen from the origin. `CloudConversion` filters files
    /// this way.
    public func run(_ file: CloudFile, warnings: inout [String]) throws -> (PointCloud, [FilterStepReport]) {
        try run(file.cloud, viewpoint: file.header.viewpoint.map { Viewpoint(pose: $0) } ?? .camera, warnings: &warnings)
    }
}
