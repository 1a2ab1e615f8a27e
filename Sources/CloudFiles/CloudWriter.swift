import CloudCore
import CloudIO

/// Writes clouds as PLY or PCD, atomically: the encoder writes a temporary file in the
/// destination's folder (`AtomicFile`), which is renamed over the destination only when every
/// byte is written; on any failure it is removed, so a half-written cloud file never exists
/// under the destination's name.
public enum CloudWriter {
    /// The most points cloudgen writes to one file.
    public static let maxPoints = CloudFileLimits.maxPoints

    /// Writes `cloud` to `path` in the format its extension names (.ply / .pcd) and `encoding`;
    /// returns the number of points the file holds (see the other `write`).
    @discardableResult
    public static func write(_ cloud: PointCloud, to path: String, encoding: CloudEncoding = .binary) throws -> Int {
        try write(cloud, to: path, format: CloudFileFormat(path: path, encoding: encoding))
    }

    /// Writes `cloud` to `path` in `format`, whatever the extension.
    ///
    /// Fields: x y z, rgb when the cloud has colors, normal_x normal_y normal_z curvature (0 when
    /// the cloud has none) when it has normals; PLY spells them red green blue (uchar) and
    /// nx ny nz. A point with a NaN or infinite coordinate is an empty pixel, not a point: an
    /// unorganized cloud leaves it out in every format (the header counts what is written). An
    /// organized cloud keeps WIDTH x HEIGHT in PCD, empty pixels as NaN points; in PLY they are
    /// left out and PCL's range_grid element keeps the grid (PCL reads it back organized, Open3D
    /// and plyfile read the valid points). Floats keep every bit in every encoding (ascii prints
    /// the shortest decimal that reads back as the same float). Binary and binary_compressed PCD
    /// headers are PCL's PCDWriter's.
    ///
    /// `viewpoint`, the camera's pose in the cloud's frame (a world-frame capture's), is recorded
    /// as PCD's VIEWPOINT and a PLY `comment cloudgen viewpoint` line (`Pose.viewpoint`); nil
    /// writes the identity, as for a camera-frame cloud.
    ///
    /// Returns the number of points the file holds: the cloud's finite points, except for an
    /// organized PCD, which holds all width x height. An unorganized cloud without one finite
    /// point is bad input (there is nothing to write).
    @discardableResult
    public static func write(_ cloud: PointCloud, to path: String, format: CloudFileFormat, viewpoint: Pose? = nil) throws -> Int {
        guard cloud.count <= maxPoints else {
            throw CloudError.badInput("\(path): \(cloud.count) points is more than cloudgen writes (at most \(maxPoints))")
        }
        guard cloud.count > 0 else { throw CloudError.badInput("\(path): the cloud has no points, so there is nothing to write") }
        let finite = cloud.finiteCount
        let organized = cloud.organized.map { $0.height > 1 } ?? false
        guard organized || finite > 0 else {
            throw CloudError.badInput("\(path): the cloud has no point with finite coordinates, so there is nothing to write")
        }
        let layout = RecordLayout(cloud: cloud, viewpoint: viewpoint.map { $0.viewpoint }, finite: finite)
        try AtomicFile.write(path) { temporary in
            let sink = try FileSink(path: temporary, destination: path)
            switch format {
            case let .ply(encoding): try PLYEncoder(layout: layout, ascii: encoding == .ascii).write(to: sink, path: path)
            case let .pcd(encoding): try PCDEncoder(layout: layout, encoding: encoding).write(to: sink, path: path)
            }
            try sink.finish()
        }
        if case .pcd = format, organized { return cloud.count }
        return finite
    }
}

/// A cloud about to be written: its channels, and which of its points are points.
struct RecordLayout {
    let cloud: PointCloud
    /// tx ty tz qw qx qy qz, or nil for the identity.
    let viewpoint: [Double]?
    /// Points with all three coordinates finite.
    let finite: Int
    var organized: Bool { (cloud.organized?.height ?? 1) > 1 }
    var hasColors: Bool { cloud.colors != nil }
    var hasNormals: Bool { cloud.normals != nil }

    /// Whether point `i` has three finite coordinates (a NaN or infinite one marks an empty pixel).
    @inline(__always)
    func isPoint(_ p: UnsafePointer<Float>, _ i: Int) -> Bool {
        p[3 * i].isFinite && p[3 * i + 1].isFinite && p[3 * i + 2].isFinite
    }

    /// The seven viewpoint numbers as text that reads back as the same doubles.
    var viewpointText: String {
        (viewpoint ?? [0, 0, 0, 1, 0, 0, 0]).map { $0 == $0.rounded() && abs($0) < 1e15 ? String(Int64($0)) : "\($0)" }
            .joined(separator: " ")
    }
}
