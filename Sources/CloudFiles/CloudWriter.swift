import CloudCore
import SafeIO

/// Writes clouds as PLY or PCD, atomically: the encoder writes a temporary file in the
/// destination's folder (`AtomicFile`), which is renamed over the destination only when every
/// byte is written; on any failure it is removed, so a half-written cloud file never exists
/// under the destination's name.
public enum CloudWriter {
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
    /// organized cloud keeps its grid, empty pixels as NaN points: PCD's WIDTH x HEIGHT, PLY's
    /// `obj_info num_cols / num_rows` over W x H vertices (PCL reads both back organized; Open3D,
    /// plyfile and trimesh read W x H points). Floats keep every bit in every encoding (ascii prints
    /// the shortest decimal that reads back as the same float). Binary and binary_compressed PCD
    /// headers are PCL's PCDWriter's.
    ///
    /// `viewpoint`, the camera's pose in the cloud's frame (a world-frame capture's), is recorded
    /// as PCD's VIEWPOINT and a PLY `comment cloudgen viewpoint` line (`Pose.viewpoint`); nil
    /// writes the identity, as for a camera-frame cloud.
    ///
    /// Returns the number of point records the file holds: the cloud's finite points, or all
    /// width x height of an organized cloud. An unorganized cloud without one finite point is
    /// bad input (there is nothing to write).
    @discardableResult
    public static func write(
        _ cloud: PointCloud, to path: String, format: CloudFileFormat, viewpoint: Pose? = nil,
        relativeUnits: Bool = false
    ) throws -> Int {
        let layout = try layout(cloud, path: path, viewpoint: viewpoint, relativeUnits: relativeUnits)
        try AtomicFile.write(path) { temporary in
            let sink = try FileSink(path: temporary, destination: path)
            switch format {
            case let .ply(encoding): try PLYEncoder(layout: layout, ascii: encoding == .ascii).write(to: sink)
            case let .pcd(encoding): try PCDEncoder(layout: layout, encoding: encoding).write(to: sink, path: path)
            }
            try sink.finish()
        }
        return layout.recordCount
    }

    /// The points and bytes `write` would give `cloud` as binary PLY (the same checks, nothing
    /// written): the service counts an upload's cloud at once and writes it on first download.
    public static func binaryPLYSize(
        _ cloud: PointCloud, for path: String, viewpoint: Pose? = nil, relativeUnits: Bool = false
    ) throws -> (points: Int, bytes: Int) {
        let layout = try layout(cloud, path: path, viewpoint: viewpoint, relativeUnits: relativeUnits)
        return (layout.recordCount, PLYEncoder(layout: layout, ascii: false).binaryBytes)
    }

    /// The records of `cloud` as `path` would hold them; refuses a cloud with nothing to write.
    private static func layout(_ cloud: PointCloud, path: String, viewpoint: Pose?, relativeUnits: Bool) throws -> RecordLayout {
        guard cloud.count <= CloudFileLimits.maxPoints else {
            throw CloudError.badInput(
                .file(path), "\(cloud.count) points is more than cloudgen writes (at most \(CloudFileLimits.maxPoints))")
        }
        guard cloud.count > 0 else { throw CloudError.badInput(.file(path), "the cloud has no points, so there is nothing to write") }
        let finite = cloud.finiteCount
        let organized = cloud.organized.map { $0.height > 1 } ?? false
        guard organized || finite > 0 else {
            throw CloudError.badInput(.file(path), "the cloud has no point with finite coordinates, so there is nothing to write")
        }
        return RecordLayout(cloud: cloud, viewpoint: viewpoint.map { $0.viewpoint }, relativeUnits: relativeUnits, finite: finite)
    }
}
