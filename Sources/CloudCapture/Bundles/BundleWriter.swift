import CloudCore
import Foundation
import SafeIO

/// Writes a capture bundle (`--bundle DIR`; layout in Docs/formats.md) from any source's frames.
///
/// Frames are written as they are appended, into a hidden sibling directory; `finish()` writes
/// manifest.json last and renames the whole directory into place. Until then `directory` does
/// not exist, and a writer dropped without `finish()` (an error part-way) removes what it wrote:
/// there is never a half-written bundle.
///
/// Planes are stored as the source delivered them, with rows packed (no padding), so reading
/// the bundle back gives the same bytes. Two conversions keep to AVFoundation's formats, both
/// lossless for the cloud: integer depth (Kinect millimetres, TUM's 1/5000 m) becomes
/// depthFloat32 metres, exactly the floats reading the integers gives; RGB color becomes BGRA.
public final class BundleWriter {
    public let directory: String
    private let folder: StagedDirectory
    private var staging: URL { folder.staging }
    private var frames: [BundleManifest.Frame] = []
    private var finished = false

    /// Refuses a `directory` that exists and is not empty: a bundle never replaces other files.
    public init(directory: String) throws {
        self.directory = directory
        folder = try StagedDirectory(directory, what: "bundle")
        try folder.makeSubfolder("frames")
    }

    public var frameCount: Int { frames.count }

    public func append(frame: CapturedFrame) throws {
        precondition(!finished, "BundleWriter.append after finish")
        let stem = String(format: "frames/%06d", frames.count)
        let origin = "\(directory): frame \(frames.count)"
        try frame.intrinsics.validate(origin: origin)
        try frame.distortion?.validate(origin: origin)
        guard frame.timestamp.isFinite else { throw CloudError.badInput(.file(origin), "timestamp \(frame.timestamp) is not finite") }

        let d = frame.depth
        let (format, depthBytes) = try Self.depthPlane(d, origin: origin)
        try write(depthBytes, to: "\(stem).depth")
        let depth = BundleManifest.Depth(
            file: "\(stem).depth", format: format.rawValue, width: d.width, height: d.height,
            accuracy: d.accuracy.rawValue, filtered: d.isFiltered)

        var color: BundleManifest.Color?
        if let c = frame.color {
            try ImageLimits.check(width: c.width, height: c.height, origin: "\(origin) color")
            let (format, planes, matrix) = try Self.colorPlanes(c, origin: origin)
            let files = format.extensions.map { "\(stem).\($0)" }
            for (plane, file) in zip(planes, files) { try write(plane, to: file) }
            color = .init(files: files, format: format.rawValue, width: c.width, height: c.height, yCbCrMatrix: matrix)
        }
        frames.append(
            .init(
                timestamp: frame.timestamp, depth: depth, color: color,
                calibration: .init(frame), cameraToWorld: frame.pose?.columnMajorMatrix))
    }

    /// Writes the manifest and moves the bundle to `directory`.
    public func finish() throws {
        precondition(!finished, "BundleWriter.finish twice")
        guard !frames.isEmpty else { throw CloudError.badInput("\(directory): no frames to write a bundle of") }
        let manifest = BundleManifest(format: BundleManifest.formatName, version: BundleManifest.currentVersion, frames: frames)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let json: Data
        do {
            json = try encoder.encode(manifest)
        } catch {
            throw CloudError.io("\(directory): cannot encode the manifest: \(error.localizedDescription)")
        }
        try write([UInt8](json), to: BundleManifest.fileName)
        try folder.commit()
        finished = true
    }

    /// Errors name the file inside the bundle's own name ("scan/frames/000000.depth: ... No space
    /// left on device"), not the hidden folder it is staged in.
    private func write(_ bytes: [UInt8], to name: String) throws {
        try folder.naming { try AtomicFile.write(bytes: bytes, to: staging.appendingPathComponent(name).path) }
    }

    /// The depth plane with packed rows, in a bundle format.
    private static func depthPlane(_ d: CapturedFrame.Depth, origin: String) throws -> (BundleDepthFormat, [UInt8]) {
        try ImageLimits.check(width: d.width, height: d.height, origin: "\(origin) depth")
        let bps = d.encoding.bytesPerSample
        let rowBytes = d.width * bps
        guard d.bytesPerRow >= rowBytes, d.data.count >= d.bytesPerRow * (d.height - 1) + rowBytes else {
            throw CloudError.badInput(
                .file(origin), "depth plane holds \(d.data.count) bytes, too few for \(d.height) rows of \(d.bytesPerRow)")
        }
        let format: BundleDepthFormat
        switch d.encoding {
        case .depthFloat16: format = .depthFloat16
        case .depthFloat32: format = .depthFloat32
        case .disparityFloat16: format = .disparityFloat16
        case .disparityFloat32: format = .disparityFloat32
        case .uint16:
            // The floats DepthMap makes of the integers, so the cloud is the same either way.
            let metres = try d.data.withUnsafeBytes {
                try DepthMap(raw: $0, width: d.width, height: d.height, encoding: d.encoding, bytesPerRow: d.bytesPerRow, origin: origin)
            }.metres
            var out = [UInt8](repeating: 0, count: metres.count * 4)
            out.withUnsafeMutableBytes { raw in
                for (i, z) in metres.enumerated() { raw.storeBytes(of: z.bitPattern.littleEndian, toByteOffset: 4 * i, as: UInt32.self) }
            }
            return (.depthFloat32, out)
        }
        return (format, packRows(d.data, rows: d.height, rowBytes: rowBytes, stride: d.bytesPerRow))
    }

    /// The color planes in a bundle format, and the YUV matrix name for YUV.
    private static func colorPlanes(_ c: CapturedFrame.Color, origin: String) throws -> (BundleColorFormat, [[UInt8]], String?) {
        func plane(_ i: Int, bytes: Int) throws -> [UInt8] {
            guard i < c.planes.count, c.planes[i].count >= bytes else {
                throw CloudError.badInput(
                    .file(origin),
                    "color plane \(i) holds \(i < c.planes.count ? c.planes[i].count : 0) bytes, \(c.width)x\(c.height) needs \(bytes)")
            }
            return Array(c.planes[i].prefix(bytes))
        }
        let pixels = c.width * c.height
        switch c.layout {
        case .yuv420BiPlanar(let yuv):
            let chroma = ((c.width + 1) / 2) * ((c.height + 1) / 2) * 2
            return (
                yuv.range == .full ? .yuv420f : .yuv420v, [try plane(0, bytes: pixels), try plane(1, bytes: chroma)],
                yuv.matrix.rawValue
            )
        case .bgra8:
            return (.bgra, [try plane(0, bytes: pixels * 4)], nil)
        case .rgb8:
            let rgb = try plane(0, bytes: pixels * 3)
            var bgra = [UInt8](repeating: 255, count: pixels * 4)
            for i in 0..<pixels {
                bgra[4 * i] = rgb[3 * i + 2]
                bgra[4 * i + 1] = rgb[3 * i + 1]
                bgra[4 * i + 2] = rgb[3 * i]
            }
            return (.bgra, [bgra], nil)
        }
    }

    private static func packRows(_ data: [UInt8], rows: Int, rowBytes: Int, stride: Int) -> [UInt8] {
        if stride == rowBytes { return Array(data.prefix(rows * rowBytes)) }
        var out: [UInt8] = []
        out.reserveCapacity(rows * rowBytes)
        for r in 0..<rows { out += data[(r * stride)..<(r * stride + rowBytes)] }
        return out
    }
}
