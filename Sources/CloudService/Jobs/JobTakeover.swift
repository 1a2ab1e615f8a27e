import ServiceLifecycle

/// With a shared index, the server's sweep for jobs whose replica died: at start and every
/// `interval` after, it claims those whose lease ran out (`JobBoard.takeOverAbandoned`). A job is
/// taken over at most a lease plus `interval` after its replica died.
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
