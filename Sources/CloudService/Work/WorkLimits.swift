import CloudCore
import CloudPCL
import Foundation
import SafeIO

/// What one request may ask of the server, so that no request (a script's mistake, or an
/// attacker's) can take the CPU or memory every other client needs:
/// - at most `maxSteps` filter steps, refused as the request is read, before anything is queued;
/// - an estimate of the steps' CPU time on the points they will see, held against `cpuShare`
///   before an export is queued (its points are known) and before each step of a capture runs;
/// - `memoryShare` for the fused cloud as frames accumulate and for each step's working set;
/// - the work stops between its steps once its client has gone (`CancellationFlag`).
struct WorkLimits: Sendable {
    /// Filter steps in one capture, export or conversion: a pipeline of a few cleaning steps is
    /// what anyone runs; sixteen leaves room for every filter twice over.
    static let maxSteps = 16

    let cpuShare: CPUShare
    let memoryShare: MemoryShare

    init(configuration: ServiceConfiguration) {
        cpuShare = CPUShare(seconds: configuration.maxRequestSeconds, holder: "a request on this server", setting: "--max-request-seconds")
        memoryShare = MemoryShare(
            bytes: configuration.maxRequestMemoryBytes, holder: "a request on this server", setting: "--max-request-memory-mb")
    }

    /// Refuses a request for more than `maxSteps` steps, naming the field they came in.
    static func checkStepCount(_ count: Int, field: String) throws {
        guard count <= maxSteps else {
            throw Problem.unprocessable("\(field): \(count) filter steps; a request may ask for at most \(maxSteps)", field: field)
        }
    }

    /// The pipeline for `steps`, held to this request's shares and stopped when it is cancelled.
    func pipeline(_ steps: [FilterStep], organized: Bool = false, cancelled: CancellationFlag) -> FilterPipeline {
        var pipeline = FilterPipeline(steps: steps, organized: organized)
        pipeline.memoryShare = memoryShare
        pipeline.cpuShare = cpuShare
        pipeline.stop = { cancelled.isRaised }
        return pipeline
    }

    /// Before an export is queued: its steps' estimate on the `points` of the stored cloud (or
    /// before a stream opens, on the points of one frame, against `cpu`, a frame's share).
    /// `field` names the query parameter or key at fault; nil leaves the step's own.
    func admit(_ steps: [FilterStep], points: Int, field: String?, cpu: CPUShare? = nil) throws {
        // The stored cloud read back: positions (12 bytes a point), colors (3), normals (12) at most.
        let cloudBytes = points * 27
        do {
            try (cpu ?? cpuShare).admit(steps[...], points: points)
            for step in steps {
                try MemoryBudget.require(
                    step.filter.workingBytes(points: points), for: "\(step.filter.name) on \(points) points",
                    about: .option(step.option), within: memoryShare, held: cloudBytes)
            }
        } catch let error as CloudError {
            var problem = Problem.from(error)
            if let field { problem.field = field }
            throw problem
        }
    }
}
