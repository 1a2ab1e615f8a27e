import Foundation
import ServiceLifecycle

/// Gives the memory that finished work freed back to the system once the server has been idle
/// (no work in its pools, no stream open) for a few seconds. The allocator is told to keep freed
/// memory while work comes (`CloudServer.keepFreedMemory`: a tenth of an upload's time went to
/// page faults otherwise), so without this an idle server stays at its busiest size for good.
struct IdleTrim: Service {
    let pools: [WorkerPool]
    let streams: StreamHub
    /// How long the server must have been idle.
    var quiet: Duration = .seconds(2)

    func run() async throws {
        var trimmedAfter = 0
        var idleSince: ContinuousClock.Instant?
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try? await Task.sleep(for: .milliseconds(500))
            let busy = pools.contains { $0.load != (0, 0) } || !streams.all.isEmpty
            if busy {
                idleSince = nil
                continue
            }
            let now = ContinuousClock.now
            let since = idleSince ?? now
            idleSince = since
            let done = pools.reduce(0) { $0 + $1.completed }
            if done != trimmedAfter && now - since >= quiet {
                CloudServer.trimFreedMemory()
                trimmedAfter = done
            }
        }
    }
}
