// `cloudgen-bench stream DATA --service URL | --relay URL`: pushes Open3D's five Redwood frames
// (16-bit depth in the codec asked for, the color JPEG as stored, the trajectory's pose), cycled,
// to a live stream of `cloudgen serve` watched by viewers of this process; or, with --relay, to the
// Python peer's relay (Tools/bench/stream_peer.py), whose own viewer times itself. Reads the CPU
// time and RSS of the server's processes (--pid) around the timed frames. Tools/bench/stream
// drives it and puts the figures in a table. Prints one JSON object.

import ArgumentParser
import CloudCapture
import CloudCore
import CloudImages
import CloudStream
import CloudStreamClient
import Foundation
import HummingbirdWSClient
import Logging
import NIOCore

struct StreamBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stream", abstract: "Live streams: frames a second, latency, server CPU per frame, bytes per frame.")

    struct Viewer: Codable {
        /// Timed frames this viewer got (the newest frame each time: it may skip some).
        var frames: Int
        /// Its frames a second, from the first timed push to its last receipt.
        var framesPerSecond: Double
        var skipped: Int
        /// Viewer receipt (message decoded) minus `captured`, in ms.
        var latencyP50Ms: Double
        var latencyP99Ms: Double
        /// The stages of the median frame's way, ms: push socket in (received - captured), the
        /// server making the frame and its message (sent - received), and to the viewer (receipt - sent).
        var inP50Ms: Double
        var makeP50Ms: Double
        var outP50Ms: Double
    }

    struct Report: Codable {
        var build: String
        var target: String
        var codec: String
        var width: Int
        var height: Int
        var fps: Double
        var pushed: Int
        /// The push messages' mean size (header, depth, JPEG).
        var pushBytes: Double
        /// Frames the stream made in the timed part (GET /v1/streams/{id}'s `frames`), and the
        /// dropped-frames metric's growth meanwhile; nil against the relay.
        var made: Int?
        var dropped: Int?
        /// Frames made (the relay: pushed) a second, from the first timed push to the last frame's receipt.
        var framesPerSecond: Double
        /// CPU time of the --pid processes in the timed part, until they went idle.
        var cpuSeconds: Double
        var cpuMsPerFrame: Double?
        var rssBeforeKib: Int
        var rssAfterKib: Int
        var viewers: [Viewer]
    }

    @Argument(help: "../shared/data.")
    var data: String

    @Option(help: "cloudgen serve's address, http://HOST:PORT.")
    var service: String?

    @Option(help: "The Python peer's relay, ws://HOST:PORT (frames go to /push; its viewer is its own).")
    var relay: String?

    @Option(help: "A process whose CPU time and RSS are read (the server; repeat for the peer's relay and viewer).")
    var pid: [Int32] = []

    @Option(help: "Timed frames.")
    var frames = 600

    @Option(help: "Untimed frames first.")
    var warmup = 20

    @Option(help: "Frames a second; 0 pushes as fast as the server takes them.")
    var fps: Double = 0

    @Option(help: "Depth coding: png, rvl or zstd.")
    var codec = "zstd"

    @Option(help: "Viewers of the stream (cloudgen only).")
    var viewers = 1

    @Option(help: "The viewers' point budget.")
    var points = 50_000

    @Flag(inversion: .prefixedNo, help: "Viewers ask for the depth and color pictures too, as the live page does.")
    var pictures = true

    @Option(help: "Shrinks the frames by this factor a side (4: 160x120).")
    var shrink = 1

    func validate() throws {
        guard (service == nil) != (relay == nil) else { throw ValidationError("give --service or --relay") }
        guard DepthFrameCodec(rawValue: codec) != nil else { throw ValidationError("--codec is png, rvl or zstd") }
        guard frames >= 1, warmup >= 1, fps >= 0, viewers >= 0, [1, 2, 4, 8].contains(shrink) else {
            throw ValidationError("--frames and --warmup at least 1, --fps 0 or more, --shrink 1, 2, 4 or 8")
        }
    }

    func run() throws {
        let outcome = OutcomeBox()
        let done = DispatchSemaphore(value: 0)
        // ArgumentParser's root command is synchronous; the sockets run on Swift's concurrency pool.
        Task {
            do { outcome.result = .success(try await measure()) } catch { outcome.result = .failure(error) }
            done.signal()
        }
        done.wait()
        let report = try outcome.result!.get()
        try printReport { report }
    }

    private final class OutcomeBox: @unchecked Sendable {
        var result: Result<Report, Error>?
    }

    private func measure() async throws -> Report {
        let codec = DepthFrameCodec(rawValue: codec)!
        let sequence = try BenchFrames(data: data, codec: codec, shrink: shrink)
        let push: (StreamMessage) async throws -> Void
        var streamURL: String?
        var watching: [Task<[Receipt], Error>] = []
        let last = warmup + frames - 1
        let finish: () async throws -> Void
        if let service {
            let url = try ServiceURL(service)
            let request = StreamRequest(intrinsics: sequence.intrinsics, depthScale: 1000)
            let pusher = try await StreamPusher.start(on: url, token: nil, request: request, codec: codec)
            let query = "?points=\(points)" + (pictures ? "&depth=1&color=1" : "")
            watching = (0..<viewers).map { _ in Task { try await Self.watch(pusher.stream.liveURL + query, from: warmup, until: last) } }
            streamURL = service + "/v1/streams/" + pusher.stream.id
            // Viewers count only once their socket is up: wait for the stream to list them all.
            try await Self.waitFor(seconds: 30, "\(viewers) viewers on the stream") {
                (try Self.streamState(streamURL!)["viewers"] as? Int) == viewers
            }
            push = { try await pusher.push($0) }
            finish = { try await pusher.finish() }
        } else {
            let socket = try await RelayPusher.connect(relay! + "/push")
            push = { try await socket.send($0) }
            finish = { await socket.close() }
        }

        var bytes = 0
        func pushRun(_ range: Range<Int>) async throws -> Double {
            let start = Self.now()
            for index in range {
                if fps > 0 {
                    let due = start + Double(index - range.lowerBound) / fps
                    let wait = due - Self.now()
                    if wait > 0 { try await Task.sleep(nanoseconds: UInt64(wait * 1e9)) }
                }
                let message = try sequence.message(index: index, codec: codec)
                // Counted from the parts: encoding the message here would copy it once more per frame.
                if index >= warmup { bytes += 4 + message.header.count + message.payloads.reduce(0) { $0 + $1.count } }
                try await push(message)
            }
            return start
        }
        _ = try await pushRun(0..<warmup)
        try await Task.sleep(for: .seconds(1))
        let cpuBefore = Self.cpuSeconds(pid)
        let rssBefore = pid.first.map(Self.rssKiB) ?? 0
        let madeBefore = try streamURL.map { try Self.streamState($0)["frames"] as? Int ?? 0 }
        let droppedBefore = try service.map { try Self.droppedFrames($0) }
        let start = try await pushRun(warmup..<warmup + frames)
        var pushedUntil = Self.now()
        var receipts: [[Receipt]] = []
        for task in watching { receipts.append(try await task.value) }
        if let end = receipts.compactMap({ $0.last?.at }).max() { pushedUntil = end }
        let cpu = try await Self.cpuWhenIdle(pid) - cpuBefore
        let rssAfter = pid.first.map(Self.rssKiB) ?? 0
        let made = try streamURL.map { (try Self.streamState($0)["frames"] as? Int ?? 0) - madeBefore! }
        let dropped = try service.map { try Self.droppedFrames($0) - droppedBefore! }
        try await finish()
        let perFrame = made ?? frames
        return Report(
            build: build, target: service == nil ? "relay" : "cloudgen", codec: codec.rawValue, width: sequence.width,
            height: sequence.height, fps: fps, pushed: warmup + frames, pushBytes: Double(bytes) / Double(frames), made: made,
            dropped: dropped, framesPerSecond: Double(perFrame) / (pushedUntil - start), cpuSeconds: cpu,
            cpuMsPerFrame: pid.isEmpty ? nil : 1000 * cpu / Double(perFrame), rssBeforeKib: rssBefore, rssAfterKib: rssAfter,
            viewers: receipts.map { Self.summary($0, since: start) })
    }

    struct Receipt {
        var frame: Int
        /// Seconds since the epoch of the message's receipt, decoded.
        var at: Double
        var latency: Double
        var inbound: Double
        var make: Double
        var outbound: Double
        var skipped: Int
    }

    /// A viewer's receipts of the timed frames (from `first` on), until it has frame `last`.
    static func watch(_ url: String, from first: Int, until last: Int) async throws -> [Receipt] {
        var receipts: [Receipt] = []
        for try await message in LiveViewer.messages(url: url, token: nil) {
            let now = StreamClock.now()
            let h = message.header
            guard h.event == nil else { break }
            if h.frame >= first {
                let ms = { (ns: Int64) in Double(ns) / 1e6 }
                receipts.append(
                    Receipt(
                        frame: h.frame, at: Double(now) / 1e9, latency: ms(now - h.captured), inbound: ms(h.received - h.captured),
                        make: ms(h.sent - h.received), outbound: ms(now - h.sent), skipped: h.skipped))
            }
            if h.frame >= last { break }
        }
        return receipts
    }

    static func summary(_ all: [Receipt], since start: Double) -> Viewer {
        let timed = all
        func p(_ values: [Double], _ q: Double) -> Double {
            let sorted = values.sorted()
            return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((q * Double(sorted.count)).rounded(.down)))]
        }
        return Viewer(
            // The first timed frame's count of skipped frames is the warm-up's, not the timed run's.
            frames: timed.count, framesPerSecond: Double(timed.count) / ((timed.last?.at ?? start) - start),
            skipped: timed.dropFirst().reduce(0) { $0 + $1.skipped },
            latencyP50Ms: p(timed.map(\.latency), 0.5), latencyP99Ms: p(timed.map(\.latency), 0.99),
            inP50Ms: p(timed.map(\.inbound), 0.5), makeP50Ms: p(timed.map(\.make), 0.5), outP50Ms: p(timed.map(\.outbound), 0.5))
    }

    // MARK: the server's side

    /// utime + stime of `pids`, in seconds.
    static func cpuSeconds(_ pids: [Int32]) -> Double {
        let hz = Double(sysconf(Int32(_SC_CLK_TCK)))
        return pids.reduce(0) { total, pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return total }
            // Fields after the command's closing parenthesis: state is field 3; utime, stime are 14, 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return total + ((Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)) / hz
        }
    }

    /// The processes' CPU time once it stops growing (their work for the last frames is done).
    static func cpuWhenIdle(_ pids: [Int32]) async throws -> Double {
        var last = cpuSeconds(pids)
        for _ in 0..<240 {
            try await Task.sleep(for: .milliseconds(250))
            let now = cpuSeconds(pids)
            if now - last <= 0.011 { return now }
            last = now
        }
        return last
    }

    static func rssKiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
    }

    static func curl(_ url: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-fsS", url]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CloudError.badInput("\(url): curl failed") }
        return data
    }

    static func streamState(_ url: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: curl(url)) as? [String: Any] ?? [:]
    }

    static func droppedFrames(_ service: String) throws -> Int {
        let text = String(decoding: try curl(service + "/metrics"), as: UTF8.self)
        return text.split(separator: "\n").filter { $0.hasPrefix("cloudgen_stream_frames_dropped_total") }
            .reduce(0) { $0 + (Int(Double($1.split(separator: " ").last ?? "0") ?? 0)) }
    }

    static func waitFor(seconds: Double, _ what: String, _ ready: () throws -> Bool) async throws {
        let end = now() + seconds
        while try !ready() {
            guard now() < end else { throw CloudError.badInput("no \(what) within \(Int(seconds)) s") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    static func now() -> Double { Double(StreamClock.now()) / 1e9 }
}

/// The five Redwood frames, prepared once: depth coded, color as JPEG bytes, pose row-major.
struct BenchFrames {
    var depth: [Data] = []
    var jpeg: [Data] = []
    var poses: [[Double]] = []
    var width = 0
    var height = 0
    let intrinsics: CameraIntrinsics

    init(data: String, codec: DepthFrameCodec, shrink: Int) throws {
        let folder = data + "/open3d-rgbd"
        let trajectory = try TrajectoryLog.read(folder + "/trajectory.log")
        for k in 0..<5 {
            let name = String(format: "%05d", k)
            let image = try ImageFile.read("\(folder)/depth/\(name).png")
            guard case .uint16(var samples) = image.samples else { throw CloudError.badInput("\(name).png: not 16-bit depth") }
            (width, height) = (image.width / shrink, image.height / shrink)
            var color = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/color/\(name).jpg"))
            if shrink > 1 {
                // Every shrink-th pixel of each: a small camera's frame of the same room.
                samples = Self.every(shrink, of: samples, width: image.width, height: image.height, channels: 1)
                let rgb = try ImageFile.decode([UInt8](color), origin: name).colorImage(origin: name)
                let small = Self.every(shrink, of: rgb.rgb, width: rgb.width, height: rgb.height, channels: 3)
                color = Data(try JPEGWriter.encode(small, width: width, height: height, channels: 3, origin: name))
            }
            depth.append(Data(try codec.encode(samples, width: width, height: height, origin: name)))
            jpeg.append(color)
            poses.append(PushFrame.rowMajor(trajectory[k]))
        }
        intrinsics = CameraIntrinsics(fx: 525, fy: 525, cx: 319.5, cy: 239.5, referenceWidth: 640, referenceHeight: 480)
            .scaled(toWidth: width, height: height)
    }

    static func every<T>(_ n: Int, of pixels: [T], width: Int, height: Int, channels: Int) -> [T] {
        var out: [T] = []
        out.reserveCapacity(pixels.count / (n * n))
        for y in stride(from: 0, to: height - n + 1, by: n) {
            for x in stride(from: 0, to: width - n + 1, by: n) {
                out.append(contentsOf: pixels[(y * width + x) * channels..<(y * width + x + 1) * channels])
            }
        }
        return out
    }

    /// Push message `index`, stamped captured now.
    func message(index: Int, codec: DepthFrameCodec) throws -> StreamMessage {
        let k = index % 5
        let header = PushHeader(
            frame: index, captured: StreamClock.now(),
            depth: .init(encoding: codec.rawValue, width: width, height: height, bytes: depth[k].count),
            color: .init(encoding: "jpeg", bytes: jpeg[k].count), pose: poses[k])
        return try StreamMessage(header: header, payloads: [depth[k], jpeg[k]])
    }
}

/// A plain WebSocket client for the Python relay, which has no POST /v1/streams to make a `StreamPusher`.
final class RelayPusher: @unchecked Sendable {
    private let writer: WebSocketOutboundWriter
    private let done: AsyncStream<Void>.Continuation
    private let connection: Task<Void, Error>

    private init(writer: WebSocketOutboundWriter, done: AsyncStream<Void>.Continuation, connection: Task<Void, Error>) {
        self.writer = writer
        self.done = done
        self.connection = connection
    }

    static func connect(_ url: String) async throws -> RelayPusher {
        let (finished, done) = AsyncStream<Void>.makeStream()
        let (opened, open) = AsyncStream<WebSocketOutboundWriter>.makeStream()
        let connection = Task {
            _ = try await WebSocketClient.connect(
                url: url, configuration: .init(maxFrameSize: 1 << 14),
                logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })
            ) { inbound, outbound, _ in
                open.yield(outbound)
                for await _ in finished {}
            }
        }
        var iterator = opened.makeAsyncIterator()
        guard let writer = await iterator.next() else { throw CloudError.badInput("\(url): no connection") }
        return RelayPusher(writer: writer, done: done, connection: connection)
    }

    func send(_ message: StreamMessage) async throws {
        try await writer.writeBinaryMessage(ByteBuffer(bytes: message.encoded))
    }

    func close() async {
        done.finish()
        _ = try? await connection.value
    }
}
