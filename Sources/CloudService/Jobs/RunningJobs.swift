import ServiceLifecycle

/// The archive jobs that are running, as a service of the server's ServiceGroup. Its `run()`
/// owns them (a child task each), so the group, and the process, end only once every job has
/// ended and saved how: a job is never left `running` by a stop that had time to be graceful.
///
/// On graceful shutdown (SIGTERM, Ctrl-C; the group stops the HTTP server first, so no request
/// is still submitting) it takes no new jobs and cancels the running ones rather than letting
/// them finish: a job may fuse thousands of frames, more than a stop should wait for. A
/// cancelled job stops between frames or filter steps, removes its upload and is saved
/// `failed` with the problem title `interrupted`, as one cut off by a crash is at the restart.
final class RunningJobs: Service, Sendable {
    typealias Job = @Sendable () async -> Void

    private let submitted: AsyncStream<Job>
    private let submit: AsyncStream<Job>.Continuation

    init() {
        (submitted, submit) = AsyncStream<Job>.makeStream()
    }

    /// Runs `job` as soon as the service runs; false once it has stopped taking jobs.
    func start(_ job: @escaping Job) -> Bool {
        if case .enqueued = submit.yield(job) { return true }
        return false
    }

    func run() async {
        await withDiscardingTaskGroup { group in
            await withGracefulShutdownHandler {
                for await job in submitted { group.addTask { await job() } }
            } onGracefulShutdown: { [submit] in
                submit.finish()
            }
            // Jobs submitted just before the stop were started above; none of them outlives it.
            group.cancelAll()
        }
    }
}
