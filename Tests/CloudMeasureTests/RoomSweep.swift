import CloudCapture
import CloudCore
import CloudMeasure
import CloudPCL
import CloudPipeline
import Foundation

/// A seeded sweep of simulated rooms, each captured by the simulated camera and measured, with
/// the measurement's error against the room's ground truth.
struct RoomSweep {
    /// One room of the sweep: its spec, and what measuring it gave.
    struct Room {
        var spec: String
        var truth: RoomTruth
        var report: RoomReport
        /// Measured minus true, with the reported sigma, per quantity.
        var errors: [(kind: String, error: Double, sigma: Double, truth: Double)]
        var problems: [String]
    }

    /// The spec of room `index`: sizes 2-8 m, heights 2.2-3.5 m, turned, with or without the L's
    /// notch, a doorway and furniture, seen through one of the three sensor models.
    static func spec(_ index: Int, seed: UInt64, frames: Int, path: String = "scan") -> String {
        var random = SplitMix64(seed: seed, stream: UInt64(index))
        func uniform(_ range: ClosedRange<Double>) -> Double { range.lowerBound + random.unit() * (range.upperBound - range.lowerBound) }
        let (w, d, h) = (uniform(2...8), uniform(2...8), uniform(2.2...3.5))
        let yaw = uniform(-45...45)
        let shape = random.unit() < 0.3 ? "L" : "box"
        let door = random.unit() < 0.3 ? 1 : 0
        let furniture = Int(random.next() % 3)
        let sensor = ["", ",sensor=kinect,depth=320x240", ",sensor=lidar"][Int(random.next() % 3)]
        return String(
            format: "synthetic:room=%.2fx%.2fx%.2f,seed=%d,yaw=%.1f,shape=%@,door=%d,furniture=%d%@,color=32x24",
            w, d, h, index, yaw, shape, door, furniture, sensor) + (frames > 1 ? ",path=\(path),frames=\(frames)" : "")
    }

    /// Captures `spec` fused in the world frame, in memory, and measures it.
    static func measure(_ spec: String) throws -> Room {
        let (report, truth) = try measureCapture(spec, fused: true)
        return compare(report, truth, spec: spec)
    }

    /// Measures a capture of `spec`: all its frames fused in the world frame, or its first frame
    /// in the camera's frame.
    static func measureCapture(_ spec: String, fused: Bool) throws -> (RoomReport, RoomTruth) {
        let collector = CloudCollector()
        var pipeline = CapturePipeline(
            source: try SourceSpec(parsing: spec), sourceOptions: SourceOptions(), frame: fused ? .world : .camera,
            frameLimit: fused ? nil : 1, fuse: fused,
            outputs: [], filters: FilterPipeline(steps: [], organized: false), observer: SilentObserver())
        pipeline.collector = collector
        let report = try pipeline.run().report
        let scan = RoomScan.collected(collector, name: report.source)!
        let measured = try RoomMeasurer.measure(scan).report
        let truth = try SyntheticCamera(settings: SyntheticSettings(parsing: spec)).scene.truth
        return (measured, truth)
    }

    /// Matches each true wall to the measured wall of the outline whose middle is nearest.
    static func compare(_ report: RoomReport, _ truth: RoomTruth, spec: String) -> Room {
        var errors: [(String, Double, Double, Double)] = []
        var problems: [String] = []
        if let height = report.height {
            errors.append(("height", height.value - truth.height, height.sigma, truth.height))
        } else {
            problems.append("no height: \(report.reasons["height"] ?? "")")
        }
        if report.outline == "closed", let area = report.area, let perimeter = report.perimeter {
            errors.append(("area", area.value - truth.floorArea, area.sigma, truth.floorArea))
            errors.append(("perimeter", perimeter.value - truth.perimeter, perimeter.sigma, truth.perimeter))
        } else {
            problems.append("outline \(report.outline)")
        }
        let origin = SIMD3(report.frame.origin[0], report.frame.origin[1], report.frame.origin[2])
        let x = SIMD3(report.frame.x[0], report.frame.x[1], report.frame.x[2])
        let y = SIMD3(report.frame.y[0], report.frame.y[1], report.frame.y[2])
        func world(_ q: [Double]) -> SIMD2<Double> {
            let p = origin + q[0] * x + q[1] * y
            return SIMD2(p.x, p.y)
        }
        let closed = report.outline == "closed"
        // A closed outline has every true wall; an open one is checked on the walls it measured.
        let found = closed ? report.walls.filter(\.inOutline) : report.walls.filter { $0.length != nil }
        if closed && found.count != truth.walls.count { problems.append("\(found.count) walls in the outline, \(truth.walls.count) true") }
        for wall in truth.walls where closed || !found.isEmpty {
            let middle = (wall.start + wall.end) / 2
            let nearest = found.min { a, b in
                let ma = (world(a.start) + world(a.end)) / 2
                let mb = (world(b.start) + world(b.end)) / 2
                return ((ma - middle) * (ma - middle)).sum() < ((mb - middle) * (mb - middle)).sum()
            }
            guard let nearest, let length = nearest.length else {
                problems.append("no measured \(wall.wall) wall")
                continue
            }
            let m = (world(nearest.start) + world(nearest.end)) / 2
            if ((m - middle) * (m - middle)).sum().squareRoot() > 0.3 {
                // In an open outline a true wall may be unmeasured; a measured one must be true.
                if closed { problems.append("no measured wall near the \(wall.wall) wall") }
                continue
            }
            errors.append(("wall", length.value - wall.length, length.sigma, wall.length))
        }
        for wall in found {
            let m = (world(wall.start) + world(wall.end)) / 2
            let nearest =
                truth.walls.map { t -> Double in
                    let middle = (t.start + t.end) / 2
                    return ((m - middle) * (m - middle)).sum().squareRoot()
                }.min() ?? .infinity
            if nearest > 0.3 { problems.append("no measured wall near the true walls: measured wall \(wall.index) stands where none is") }
        }
        return Room(spec: spec, truth: truth, report: report, errors: errors, problems: problems)
    }
}
