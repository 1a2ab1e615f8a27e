import CloudCapture
import CloudCore
import CloudFiles
import CloudImages
import CloudPCL
import CloudRegistration
import Foundation
import SafeIO

/// source -> captured frame -> RGBD frame in metres -> camera-frame cloud -> (world frame) -> filters -> files,
/// for one frame or a sequence, timing each stage. The CLI's `capture` and the service's captures
/// both drive it.
public struct CapturePipeline {
    /// nil: the first attached depth camera.
    public var source: SourceSpec?
    public var sourceOptions: SourceOptions
    public var frame: OutputFrame
    public var range: ClosedRange<Float>?
    /// How many frames to take; nil takes all a finite source has.
    public var frameLimit: Int?
    /// Stop taking frames after this many seconds (`--duration`).
    public var duration: Double?
    /// Merge the frames, each placed by its pose, into one world-frame cloud.
    public var fuse: Bool
    /// Place each frame by a pose found from the frames themselves (`SequenceTracker`), in the
    /// first frame's camera frame, whatever poses the source has.
    public var register = false
    /// Write the poses the frames were placed by: Redwood's trajectory.log for a `.log` path,
    /// TUM's lines otherwise.
    public var trajectoryPath: String?
    public var outputs: [(path: String, format: CloudFileFormat)]
    /// Also write each frame as color + 16-bit depth PNGs and Open3D intrinsics JSON.
    public var rgbdDirectory: String?
    /// Also write the frames as they were captured, as a capture bundle.
    public var bundleDirectory: String?
    /// The filter steps, run on each frame's cloud in the output frame (on the fused cloud with `fuse`).
    public var filters: FilterPipeline
    /// The preview and depth images, when asked for.
    public var pictures: PreviewOutputs?
    /// Told of warnings and progress, asked whether to stop.
    public var observer: CaptureObserver
    /// Keeps the cloud (the last frame's, or the fused one) and where its cameras stood, for a
    /// command that goes on with it in memory (`measure`).
    public var collector: CloudCollector?
    /// The part of memory this capture may take, when it is less than the process's (a server
    /// request's); the fused cloud and the filters are held to it.
    public var memoryShare: MemoryShare? {
        didSet { filters.memoryShare = memoryShare }
    }
    /// Count each output (points, bytes, bounds in the report) without writing it; binary PLY
    /// only. The service stores an upload's inputs, and makes its cloud from them when first read.
    public var countOnly = false

    public init(
        source: SourceSpec?, sourceOptions: SourceOptions, frame: OutputFrame = .camera, range: ClosedRange<Float>? = nil,
        frameLimit: Int?, duration: Double? = nil, fuse: Bool = false, outputs: [(path: String, format: CloudFileFormat)],
        rgbdDirectory: String? = nil, bundleDirectory: String? = nil, filters: FilterPipeline, pictures: PreviewOutputs? = nil,
        observer: CaptureObserver
    ) {
        self.source = source
        self.sourceOptions = sourceOptions
        self.frame = frame
        self.range = range
        self.frameLimit = frameLimit
        self.duration = duration
        self.fuse = fuse
        self.outputs = outputs
        self.rgbdDirectory = rgbdDirectory
        self.bundleDirectory = bundleDirectory
        self.filters = filters
        self.pictures = pictures
        self.observer = observer
    }

    /// Refuses settings that cannot work together, before any frame is taken.
    public func check() throws {
        if fuse, let grid = filters.steps.first(where: { $0.filter.needsGrid })?.option ?? (filters.organized ? .switch("organized") : nil)
        {
            throw CloudError.badInput(
                "\(grid) works on one frame's depth grid, and \(switch: "fuse") merges frames into a cloud without one; capture without \(switch: "fuse")"
            )
        }
        if let duration, !(duration.isFinite && duration > 0) {
            throw CloudError.badInput("\(option: "duration") must be a positive number of seconds, not \(duration)")
        }
    }

    /// `lost`: the camera went away after some frames; they are in the report, and the command
    /// fails with it once they are written.
    public func run() throws -> (report: CaptureReport, filters: [FilterStepReport], lost: CloudError?) {
        try check()
        var clock = StageClock()
        let source = try (self.source ?? USBDiscovery.defaultSourceSpec()).open(options: sourceOptions)
        source.warnings.forEach(observer.warning)
        let needsPose = fuse || frame == .world
        if needsPose && !source.knowsPose && !register {
            let what: CloudError.Reason =
                fuse ? "\(switch: "fuse") needs a posed sequence" : "\(option: "frame", "world") needs the camera's pose"
            throw CloudError.badInput(.source(source.name), what + ", and this source has no poses")
        }
        // Find an unwritable output before spending a whole sequence on it.
        for path in outputs.map(\.path) + [trajectoryPath].compactMap({ $0 }) { try AtomicFile.checkWritable(path) }
        // The total the progress bar counts to: what was asked for, or all a recording has.
        let expected = [frameLimit, source.knownFrameCount].compactMap { $0 }.min()
        let expectedFrames = duration == nil ? expected : nil
        let exporter = try rgbdDirectory.map { try RGBDExporter(directory: $0) }
        // The bundle writer works in a hidden folder until `finish()`: a failed capture leaves none.
        let bundle = try bundleDirectory.map { try BundleWriter(directory: $0) }

        var first: (captured: CapturedFrame, rgbd: RGBDFrame)?
        var totals = BackProjection.Counts(pixels: 0, valid: 0, droppedByRange: 0, points: 0)
        var fused = PointCloud(positions: [], colors: nil)
        var files: [CaptureReport.File] = []
        var filterReports: [FilterStepReport] = []
        var filterWarnings: [CloudWarning] = []
        // The cameras' mean position: what a fused cloud's normals face (see below).
        var cameraSum = SIMD3<Float>.zero
        var index = 0
        // Frames a posed capture left out for want of a pose (TUM's ground truth has gaps; the
        // source says how many when it opens).
        var unposed = 0
        // A frame of relative depth (a portrait photo's) makes every file written from then on say so.
        var relativeUnits = false
        // A registered world is the first camera's frame, not the source's.
        collector?.begin(worldUp: register ? nil : source.worldUp, worldFrame: needsPose)
        var tracker = register ? SequenceTracker() : nil
        var trajectory: [(timestamp: Double, pose: Pose)] = []
        // Frames the source delivered, counted as warnings name them (index counts those used).
        var delivered = 0
        var stop = CaptureStop(source: source.name, duration: duration, observer: observer)
        let stage = FrameStage(range: range, posed: needsPose, filters: filters, filtersEachFrame: !fuse)
        while (frameLimit.map { index < $0 } ?? true) && !stop.due {
            guard var captured = try stop.next(from: source, captured: index) else { break }
            clock.lap("acquire")
            delivered += 1
            if needsPose && captured.pose == nil && !register {
                unposed += 1
                continue
            }
            var rgbd = try stage.decode(captured, origin: source.name)
            clock.lap("convert")
            if let step = tracker?.track(OdometryFrame(rgbd)) {
                clock.lap("register")
                guard let pose = step.pose else {
                    observer.warning(
                        CloudWarning(.source(source.name), "frame \(delivered - 1) was not registered (\(step.problem ?? "")); left out"))
                    continue
                }
                if step.newSegment {
                    observer.warning(
                        CloudWarning(
                            .source(source.name),
                            "frame \(delivered - 1) starts a new segment after frames that could not be registered; it is placed where the last registered frame was, so the two parts may not line up"
                        ))
                }
                (rgbd.pose, captured.pose) = (pose, pose)
            }
            if trajectoryPath != nil, let pose = rgbd.pose { trajectory.append((captured.timestamp, pose)) }
            relativeUnits = relativeUnits || captured.depth.accuracy == .relative
            if let bundle {
                try bundle.append(frame: captured)
                clock.lap("bundle")
            }
            if let pictures {
                // Also notes the first camera, which a world-frame preview looks from.
                try pictures.writeDepthImage(rgbd, suffix: frameLimit == 1 ? nil : index, origin: source.name)
                if pictures.depthImagePath != nil || pictures.depthMapPath != nil { clock.lap("depthImage") }
            }
            if let exporter {
                try exporter.write(rgbd)
                clock.lap("rgbd")
            }
            // --range stays a back-projection limit; the grid is kept when a filter wants it.
            let made = try stage.cloud(of: rgbd, index: index, origin: source.name, warnings: &filterWarnings) { clock.lap($0) }
            let (cloud, counts, frameReports) = (made.cloud, made.counts, made.reports)
            if needsPose { cameraSum += made.viewpoint.origin }
            filterReports.add(frameReports)
            totals.add(counts)
            collector?.camera(needsPose ? rgbd.pose : nil, firstPose: first?.rgbd.pose ?? rgbd.pose)
            if first == nil {
                first = (captured, rgbd)
                warnIfStretched(captured, origin: source.name)
            }
            if fuse {
                collector?.frameStarts.append(fused.count)
                try fused.append(cloud, origin: source.name, frame: index, share: memoryShare)
                clock.lap("fuse")
            } else if frameLimit != 1 && Self.isBlank(cloud) && !outputs.isEmpty {
                // One blank frame (a covered lens, a range that excludes it) should not end a recording.
                observer.warning(
                    CloudWarning(
                        .source(source.name), "frame \(index) has no points" + why(counts, frameReports) + "; no file written for it"))
            } else {
                let single = frameLimit == 1
                files += try write(
                    cloud, viewpoint: needsPose ? rgbd.pose : nil, relativeUnits: relativeUnits, counts: counts,
                    suffix: single ? nil : index, clock: &clock, origin: source.name, filterReports: frameReports)
            }
            index += 1
            observer.advanced(frames: index, expected: expectedFrames, points: totals.points)
        }
        stop.finish(frames: index)
        guard let first else {
            if unposed > 0 && !stop.interrupted {
                throw CloudError.badInput(
                    .source(source.name),
                    "none of its \(unposed) frame\(unposed == 1 ? "" : "s") has a pose, which \(switch: "fuse") and \(option: "frame", "world") need"
                )
            }
            throw CloudError.io(
                .source(source.name),
                "\(stop.interrupted ? "interrupted before the first frame; nothing written" : "the source delivered no frame")")
        }
        if fuse {
            if !filters.steps.isEmpty {
                // A fused point no longer knows its camera. Scanned from inside a room or around an
                // object, the cameras' mean position lies on the side every surface was seen from.
                let viewpoint = Viewpoint(origin: cameraSum / Float(index), axis: Viewpoint.camera.axis)
                (fused, filterReports) = try filters.run(fused, viewpoint: viewpoint, warnings: &filterWarnings)
                collector?.frameStarts = []
                clock.lap("filter")
            }
            collector?.cloud = fused
            // The fused cloud is seen from the first camera, as its preview is drawn.
            files += try write(
                fused, viewpoint: first.rgbd.pose, relativeUnits: relativeUnits, counts: totals, suffix: nil,
                clock: &clock, origin: source.name, filterReports: filterReports)
        } else if files.isEmpty && !outputs.isEmpty {
            throw CloudError.badInput(.source(source.name), "no frame had points to write" + why(totals, filterReports))
        }
        // Once each, however many frames said so.
        var warned = Set<CloudWarning>()
        for warning in filterWarnings where warned.insert(warning).inserted { observer.warning(warning) }
        if let trajectoryPath {
            let text = trajectoryPath.hasSuffix(".log") ? TrajectoryText.redwoodLog(trajectory.map(\.pose)) : TrajectoryText.tum(trajectory)
            try AtomicFile.write(Data(text.utf8), to: trajectoryPath)
        }
        // Last, so that a capture that failed leaves neither folder behind.
        try bundle?.finish()
        if let exporter {
            try exporter.finish()
            if exporter.depthClipped > 0 {
                observer.warning(
                    CloudWarning(
                        .file(exporter.directory),
                        "\(exporter.depthClipped) depth pixels beyond 65.535 m do not fit 16-bit millimetres and were written as 0"))
            }
        }
        if let range, totals.valid > 0, totals.droppedByRange * 2 > totals.valid {
            let share = String(
                format: "dropped %d of %d valid depth pixels (%.0f%%)", totals.droppedByRange, totals.valid,
                100 * Double(totals.droppedByRange) / Double(totals.valid))
            observer.warning(CloudWarning("\(option: "range", Self.limits(range)) \(share)"))
        }
        if let frameLimit, index < frameLimit, !stop.interrupted, stop.lost == nil, duration == nil {
            observer.warning(
                CloudWarning(
                    .source(source.name), "\(option: "frames", "\(frameLimit)"): the source has only \(index) frame\(index == 1 ? "" : "s")"
                ))
        }
        if outputs.isEmpty && exporter == nil && bundle == nil && pictures == nil && collector == nil {
            observer.warning(CloudWarning("no output file requested (add \(option: "ply", "FILE") or \(option: "pcd", "FILE"))"))
        }
        observer.finished(frames: index, points: totals.points, seconds: clock.total / 1000)
        let lost = stop.lost.map {
            CloudError.io("\($0.message); the \(index) frame\(index == 1 ? "" : "s") captured before were written")
        }
        let report = CaptureReport(
            source: source.name, frame: needsPose ? .world : .camera, frames: index, fused: fuse,
            captured: first.captured, rgbd: first.rgbd, range: range, counts: totals,
            files: files, rgbdDirectory: rgbdDirectory, bundleDirectory: bundleDirectory,
            images: pictures?.written ?? [], timings: clock.laps, totalMilliseconds: clock.total)
        return (report, filterReports, lost)
    }

    /// Writes every requested file for one cloud; `suffix` numbers the files of a sequence.
    /// `viewpoint`: the camera's pose for a world-frame cloud (recorded in the files), nil in the
    /// camera frame. `relativeUnits`: the files say their distances are not metres.
    private func write(
        _ cloud: PointCloud, viewpoint: Pose?, relativeUnits: Bool, counts: BackProjection.Counts, suffix: Int?, clock: inout StageClock,
        origin: String, filterReports: [FilterStepReport]
    ) throws -> [CaptureReport.File] {
        if Self.isBlank(cloud) && !outputs.isEmpty {
            throw CloudError.badInput(.source(origin), "no points to write" + why(counts, filterReports))
        }
        collector?.cloud = cloud
        let files = try outputs.map { output -> CaptureReport.File in
            let path = suffix.map { Self.numbered(output.path, $0) } ?? output.path
            if countOnly {
                guard output.format == .ply(.binary) else {
                    throw CloudError.badInput(.file(path), "only binary PLY is counted without being written")
                }
                let (points, bytes) = try CloudWriter.binaryPLYSize(cloud, for: path, viewpoint: viewpoint, relativeUnits: relativeUnits)
                return .init(path: path, format: output.format.description, bytes: bytes, points: points, bounds: .init(cloud))
            }
            let written = try CloudWriter.write(cloud, to: path, format: output.format, viewpoint: viewpoint, relativeUnits: relativeUnits)
            clock.lap("write")
            return .init(path: path, format: output.format.description, bytes: Self.size(of: path), points: written, bounds: .init(cloud))
        }
        if let pictures, pictures.previewPath != nil {
            try pictures.writePreview(cloud, worldFrame: fuse || frame == .world, suffix: suffix)
            clock.lap("preview")
        }
        return files
    }

    /// Scaling intrinsics to an image of another aspect ratio is legal but almost always a mistake
    /// (a cropped mode, the wrong calibration file): say so rather than rescale silently.
    private func warnIfStretched(_ frame: CapturedFrame, origin: String) {
        let k = frame.intrinsics
        var images = [("depth", frame.depth.width, frame.depth.height)]
        if let c = frame.color { images.append(("color", c.width, c.height)) }
        for (what, w, h) in images where k.aspectChange(toWidth: w, height: h) > 0.01 {
            observer.warning(
                CloudWarning(
                    .source(origin),
                    "intrinsics given at \(k.referenceWidth)x\(k.referenceHeight) are scaled to the \(what) image's \(w)x\(h), "
                        + "a different aspect ratio (pixels become non-square); is the \(what) image a crop, or the calibration for another mode?"
                ))
        }
    }

    /// Whether a cloud has no point to write (an organized one may hold only NaN placeholders).
    public static func isBlank(_ cloud: PointCloud) -> Bool {
        cloud.organized == nil ? cloud.isEmpty : cloud.finiteCount == 0
    }

    /// Why a cloud came out empty, for messages: no depth, the range, or the filter that kept
    /// nothing (`reports` are those of `filters`' steps, in order).
    func why(_ counts: BackProjection.Counts, _ reports: [FilterStepReport] = []) -> CloudError.Reason {
        if counts.points > 0, let index = reports.firstIndex(where: { $0.pointsOut == 0 }) {
            return ": \(filters.steps[index].option) kept none of its \(reports[index].pointsIn) points"
        }
        guard let range, counts.valid > 0 else { return ": no valid depth" }
        return ": \(option: "range", Self.limits(range)) kept none of the \(counts.valid) valid depth pixels"
    }

    /// `--range`'s value as messages give it: "0.3,4".
    static func limits(_ range: ClosedRange<Float>) -> String {
        String(format: "%g,%g", range.lowerBound, range.upperBound)
    }

    /// `scan.ply` -> `scan_000.ply`: one file per frame of an unfused sequence.
    public static func numbered(_ path: String, _ index: Int) -> String {
        let url = URL(fileURLWithPath: path)
        let ext = url.pathExtension
        let stem = ext.isEmpty ? path : String(path.dropLast(ext.count + 1))
        return stem + String(format: "_%03d", index) + (ext.isEmpty ? "" : ".\(ext)")
    }

    /// The bytes written for `path` (still under its temporary name until the capture succeeds).
    static func size(of path: String) -> Int {
        AtomicFile.writtenSize(path) ?? 0
    }
}

extension BackProjection.Counts {
    public mutating func add(_ other: Self) {
        pixels += other.pixels
        valid += other.valid
        droppedByRange += other.droppedByRange
        points += other.points
    }
}

extension PointCloud {
    /// Appends another cloud's points. Both must agree on carrying colors; organized grids do not
    /// survive concatenation.
    ///
    /// The storage grows by doubling, and each doubling is asked of the memory budget (and of
    /// `share`, a server request's part) before it is made: a fused capture of more frames than
    /// memory holds stops with a message naming the frame, where the array's own growth would
    /// abort the process ("failed to allocate").
    public mutating func append(_ other: PointCloud, origin: String, frame: Int = 0, share: MemoryShare? = nil) throws {
        if isEmpty {
            self = PointCloud(positions: other.positions, colors: other.colors, normals: other.normals, curvature: other.curvature)
            return
        }
        guard (colors == nil) == (other.colors == nil) else {
            throw CloudError.badInput("\(origin): frames disagree on having color, so they cannot be fused")
        }
        let needed = positions.count + other.positions.count
        if needed > positions.capacity {
            let grown = Swift.max(needed, 2 * positions.capacity)
            let bytesPerValue = MemoryLayout<Float>.stride + (colors == nil ? 0 : 1)
            try MemoryBudget.require(
                grown * bytesPerValue, for: "fusing frame \(frame) into the \(count) points of the frames before it",
                about: .source(origin), within: share)
            positions.reserveCapacity(grown)
            colors?.reserveCapacity(grown)
        }
        positions += other.positions
        if let c = other.colors { colors! += c }
        normals = nil
        curvature = nil
    }
}

/// Wall-clock time per stage in milliseconds, summed over the frames of a sequence, in the order
/// the stages first ran.
public struct StageClock {
    private var watch = Stopwatch()
    public private(set) var laps: [CaptureReport.Stage] = []

    public init() {}

    public mutating func lap(_ name: String) {
        let ms = watch.lap()
        if let i = laps.firstIndex(where: { $0.stage == name }) {
            laps[i].milliseconds = ((laps[i].milliseconds + ms) * 1e3).rounded() / 1e3
        } else {
            laps.append(.init(stage: name, milliseconds: ms))
        }
    }

    public var total: Double { watch.total }
}
