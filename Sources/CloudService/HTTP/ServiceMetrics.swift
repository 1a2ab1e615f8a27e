import Foundation
import Hummingbird
import Prometheus

/// What GET /metrics reports (Prometheus text format): requests by route and status, their
/// latency, captures stored, jobs queued and running, each worker pool's busy threads and waiting
/// work, bytes written.
public final class ServiceMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let capturesStored: Gauge
    let jobsQueued: Gauge
    let jobsRunning: Gauge
    let bytesWritten: Counter
    let derivedBytes: Gauge
    let derivedBudget: Gauge
    let derivedEvictions: Counter
    let cloudsMade: Counter
    let streamFrames: Counter
    let streamFramesDropped: Counter
    private static let latencyBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10), .seconds(30)
    ]

    init() {
        capturesStored = registry.makeGauge(descriptor: Self.named("cloudgen_captures_stored", "Captures in the index"))
        jobsQueued = registry.makeGauge(descriptor: Self.named("cloudgen_jobs_queued", "Upload jobs waiting for a worker"))
        jobsRunning = registry.makeGauge(descriptor: Self.named("cloudgen_jobs_running", "Upload jobs being captured"))
        bytesWritten = registry.makeCounter(
            descriptor: Self.named("cloudgen_bytes_written_total", "Bytes of clouds, previews and uploads written to disk"))
        derivedBytes = registry.makeGauge(
            descriptor: Self.named("cloudgen_derived_bytes", "Bytes of derived files (encodings, filtered exports, previews) on disk"))
        derivedBudget = registry.makeGauge(
            descriptor: Self.named("cloudgen_derived_budget_bytes", "The derived files' byte budget (--derived-cache-mb)"))
        derivedEvictions = registry.makeCounter(
            descriptor: Self.named(
                "cloudgen_derived_evictions_total", "Derived files removed, least recently used first, to stay within the budget"))
        cloudsMade = registry.makeCounter(
            descriptor: Self.named("cloudgen_clouds_made_total", "Lazily stored uploads' clouds made from their inputs on first read"))
        streamFrames = registry.makeCounter(
            descriptor: Self.named("cloudgen_stream_frames_total", "Stream frames made into clouds for viewers"))
        streamFramesDropped = registry.makeCounter(
            descriptor: Self.named(
                "cloudgen_stream_frames_dropped_total",
                "Stream frames skipped because every stream thread was busy, or other work held the memory they needed"))
    }

    func recordRequest(route: String, method: String, status: Int, seconds: Double) {
        registry.makeCounter(
            descriptor: Self.named("cloudgen_http_requests_total", "HTTP requests answered"),
            labels: [("route", route), ("method", method), ("status", String(status))]
        ).increment()
        registry.makeDurationHistogram(
            descriptor: Self.named("cloudgen_http_request_duration_seconds", "Time from request head to response head"),
            labels: [("route", route)], buckets: Self.latencyBuckets
        )
        .recordNanoseconds(Int64(seconds * 1e9))
    }

    /// A pool's load as it is now (read when /metrics is asked for): how many of its threads are
    /// busy and how much work waits. It is what says a capture is running, not just requested.
    func recordLoad(of pool: WorkerPool) {
        let load = pool.load
        registry.makeGauge(
            descriptor: Self.named("cloudgen_pool_running", "Work items a worker pool's threads are doing"), labels: [("pool", pool.name)]
        )
        .set(Double(load.running))
        registry.makeGauge(
            descriptor: Self.named("cloudgen_pool_queued", "Work items waiting for a worker pool's thread"), labels: [("pool", pool.name)]
        )
        .set(Double(load.queued))
    }

    var text: String { registry.emitToString() }

    /// A metric's whole name (cloudgen_..., its unit included) and its help line.
    private static func named(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }
}

/// Counts every answer, errors included: it sits outside ProblemMiddleware, so it sees the final
/// status. Routes are labelled by their pattern (/v1/captures/{id}), never by the raw path, so a
/// scan of random URLs cannot grow the label set.
struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServiceMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        // Hummingbird's router names a miss "NotFound"; no route has that pattern.
        let route = context.coreContext.endpointPath.value.flatMap { $0 == "NotFound" ? nil : $0 } ?? "unmatched"
        metrics.recordRequest(
            route: route, method: request.method.rawValue, status: response.status.code,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        return response
    }
}
