import CloudCore
import CloudImages
import CloudRender
import Foundation
import SafeIO

/// Pictures of a cloud written as PNG files: one view, or a turntable of numbered frames plus an
/// animated PNG. Shared by `render` and `capture --preview`.
public struct PreviewWriter {
    public var renderer: PointRenderer
    public var view: RenderView
    public var style: RenderStyle

    public init(renderer: PointRenderer, view: RenderView, style: RenderStyle) {
        self.renderer = renderer
        self.view = view
        self.style = style
    }

    /// Milliseconds spent per stage, summed over the frames. The stages follow one another on one
    /// clock, so together they are the whole of `write`.
    public struct Timings: Encodable {
        /// Fitting the camera's distance and target to the cloud (PointRenderer.camera).
        public var framing = 0.0
        public var rasterise = 0.0
        public var shade = 0.0
        public var encode = 0.0
        public var write = 0.0
    }

    public struct Result {
        public var cameras: [OrbitCamera]
        public var files: [String]
        public var coveredPixels: Int
        public var timings: Timings
    }

    /// Renders one view into `path`, or with `turntable` N frames into PATH_000.png ... and an
    /// animated PNG at `path`.
    public func write(to path: String, turntable: Int? = nil) throws -> Result {
        var clock = Stopwatch()
        return try write(to: path, turntable: turntable, clock: &clock)
    }

    /// As above, charging each stage the time since `clock`'s previous lap: a caller that laps the
    /// same clock before and after accounts for every moment of its run.
    public func write(to path: String, turntable: Int?, clock: inout Stopwatch) throws -> Result {
        try AtomicFile.checkWritable(path)
        let cameras = try turntable.map { try renderer.turntableCameras(for: view, frames: $0) } ?? [renderer.camera(for: view)]
        var timings = Timings()
        timings.framing = clock.lap()
        var encoded: [[UInt8]] = []
        var files: [String] = []
        var covered = 0
        for (index, camera) in cameras.enumerated() {
            let buffer = renderer.rasterise(camera, pointSize: style.pointSize)
            timings.rasterise += clock.lap()
            let frame = renderer.shade(buffer, camera: camera, style: style)
            if index == 0 { covered = buffer.coveredCount }
            timings.shade += clock.lap()
            let png = try PNGWriter.encode(rgb: frame.image, origin: path)
            timings.encode += clock.lap()
            if turntable == nil {
                try AtomicFile.write(bytes: png, to: path)
                files.append(path)
            } else {
                let numbered = CapturePipeline.numbered(path, index)
                try AtomicFile.write(bytes: png, to: numbered)
                files.append(numbered)
                encoded.append(png)
            }
            timings.write += clock.lap()
        }
        if turntable != nil {
            // One turn in about four seconds, whatever the frame count.
            let delay = min(max(4000 / cameras.count, 20), 1000)
            let animation = try AnimatedPNG.assemble(frames: encoded, delayMilliseconds: delay, origin: path)
            timings.encode += clock.lap()
            try AtomicFile.write(bytes: animation, to: path)
            timings.write += clock.lap()
            files.append(path)
        }
        return Result(cameras: cameras, files: files, coveredPixels: covered, timings: timings)
    }
}
