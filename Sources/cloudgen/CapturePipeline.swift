import CloudCapture
import CloudCore
import CloudPCL
import Foundation

/// source -> captured frame -> RGBD frame in metres -> camera-frame cloud -> (world frame) -> files,
/// timing each stage. The CLI's `capture`; the HTTP service will drive the same stages.
struct CapturePipeline {
    var sourceSpec: String?
    var frame: OutputFrame
    var range: ClosedRange<Float>?
    var outputs: [(path: String, format: CloudFileFormat)]

    func run() throws -> CaptureReport {
        var clock = StageClock()
        guard let sourceSpec else {
            // Device discovery arrives with USB support; until then no camera can be attached.
            throw CloudError.io("no depth camera found; use --source synthetic to capture from the built-in simulated camera")
        }
        let source = try SourceSpec(parsing: sourceSpec).open()
        if frame == .world && !source.knowsPose {
            throw CloudError.badInput("\(source.name): this source does not know its pose, so --frame world is not possible")
        }
        guard let captured = try source.nextFrame() else {
            throw CloudError.io("\(source.name): the source delivered no frame")
        }
        clock.lap("acquire")

        let rgbd = try RGBDFrame(decoding: captured, origin: source.name)
        clock.lap("convert")

        var (cloud, counts) = try BackProjection(options: .init(range: range)).run(rgbd)
        clock.lap("backProject")
        if counts.points == 0 && !outputs.isEmpty {
            throw CloudError.badInput("\(source.name): no points to write: " + (range.map {
                String(format: "--range %g,%g kept none of the %d valid depth pixels", $0.lowerBound, $0.upperBound, counts.valid)
            } ?? "the frame has no valid depth"))
        }
        if let range, counts.valid > 0, counts.droppedByRange * 2 > counts.valid {
            Console.warning(String(format: "--range %g,%g dropped %d of %d valid depth pixels (%.0f%%)",
                                   range.lowerBound, range.upperBound, counts.droppedByRange, counts.valid,
                                   100 * Double(counts.droppedByRange) / Double(counts.valid)))
        }
        if frame == .world, let pose = rgbd.pose {
            pose.transform(positions: &cloud.positions)
            clock.lap("toWorld")
        }

        var files: [CaptureReport.File] = []
        for (path, format) in outputs {
            try CloudWriter.write(cloud, to: path, format: format)
            clock.lap("write \(path)")
            files.append(.init(path: path, format: format.description, bytes: Self.size(of: path)))
        }
        if outputs.isEmpty {
            Console.warning("no output file requested (add --ply FILE or --pcd FILE)")
        }
        return CaptureReport(source: source.name, frame: frame, captured: captured, rgbd: rgbd, range: range,
                             counts: counts, files: files, timings: clock.laps, totalMilliseconds: clock.total)
    }

    static func size(of path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }
}

/// Wall-clock time of consecutive stages, in milliseconds.
struct StageClock {
    private let start = DispatchTime.now().uptimeNanoseconds
    private var last = DispatchTime.now().uptimeNanoseconds
    private(set) var laps: [CaptureReport.Stage] = []

    mutating func lap(_ name: String) {
        let now = DispatchTime.now().uptimeNanoseconds
        laps.append(.init(stage: name, milliseconds: Self.ms(now - last)))
        last = now
    }

    var total: Double { Self.ms(DispatchTime.now().uptimeNanoseconds - start) }

    private static func ms(_ ns: UInt64) -> Double { (Double(ns) / 1e3).rounded() / 1e3 }
}
