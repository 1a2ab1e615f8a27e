import CloudCapture
import CloudFiles
import CloudPCL
import CloudPipeline

/// `cloudgen capture --source SPEC [--frames N] [--fuse] [filters] --ply OUTPUT` (binary PLY), run
/// through the product's own CapturePipeline: what the benchmark times is what a user waits for,
/// and its stages are the ones `capture --json` reports.
struct CaptureRun {
    var spec: String
    var frames: Int?
    var fuse = false
    var filters: [FilterStep] = []
    var output: String

    struct Outcome {
        /// Points written, and frames taken.
        var points: Int
        var frames: Int
        var stages: StageTimes
        /// Each filter step's points before and after it.
        var steps: [FilterStepReport]
    }

    /// One capture. The pipeline's "filter" stage is charged to its steps by name (voxel, sor,
    /// normals), as Open3D's side times each of them.
    func run() throws -> Outcome {
        let pipeline = CapturePipeline(
            source: try SourceSpec(parsing: spec), sourceOptions: SourceOptions(), frameLimit: frames, fuse: fuse,
            outputs: [(output, .ply(.binary))], filters: FilterPipeline(steps: filters, organized: false),
            observer: SilentObserver())
        let (report, steps, lost) = try pipeline.run()
        if let lost { throw lost }
        var stages = StageTimes()
        for stage in report.timings {
            guard stage.stage == "filter" else {
                stages.add(stage.stage, milliseconds: stage.milliseconds)
                continue
            }
            for step in steps { stages.add(step.name, milliseconds: step.milliseconds) }
        }
        return Outcome(points: report.files.first?.points ?? 0, frames: report.frames, stages: stages, steps: steps)
    }
}
