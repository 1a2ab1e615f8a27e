import ServiceLifecycle

/// With a shared index, the server's sweep for jobs whose replica died: at start and every
/// `interval` after, it claims one whose lease ran out (`JobBoard.takeOverAbandoned`). With
/// replicas sweeping, a job is taken over about a lease plus `interval` after its replica died.
struct JobTakeover: Service {
    let board: JobBoard
    let interval: Duration

    func run() async {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await board.takeOverAbandoned()
                try? await Task.sleep(for: interval)
            }
        }
    }
}
