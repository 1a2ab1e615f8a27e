import CShims
import CloudCore
import CloudIO

/// Writes clouds as PLY or PCD through the shim, atomically: the shim writes a temporary file in
/// the destination's folder (binary encodings itself, ascii through PCL's writers), which is
/// checked and then renamed over the destination; on any failure it is removed, so a half-written
/// cloud file never exists under the destination's name.
public enum CloudWriter {
    /// Writes `cloud` to `path` in the format its extension names (.ply / .pcd) and `encoding`;
    /// returns the number of points the file holds (see the other `write`).
    @discardableResult
    public static func write(_ cloud: PointCloud, to path: String, encoding: CloudEncoding = .binary) throws -> Int {
        try write(cloud, to: path, format: CloudFileFormat(path: path, encoding: encoding))
    }

    /// Writes `cloud` to `path` in `format`, whatever the extension.
    ///
    /// Fields: x y z, rgb when the cloud has colors, normal_x normal_y normal_z curvature (0) when
    /// it has normals; PLY spells them red green blue (uchar) and nx ny nz, without PCL's
    /// `element camera`. A point with a NaN or infinite coordinate is an empty pixel, not a point:
    /// an unorganized cloud leaves it out in every format (the header counts what is written).
    /// An organized cloud keeps WIDTH x HEIGHT in PCD, empty pixels as NaN points; in PLY they
    /// are left out and PCL's range_grid element keeps the grid (PCL reads it back organized,
    /// Open3D and plyfile read the valid points). Floats keep every bit in binary files and PCD
    /// ascii (9 significant digits); PCL's PLY ascii writer prints 6. Binary and
    /// binary_compressed PCD are byte for byte what PCL's PCDWriter writes, without its padding.
    ///
    /// `viewpoint`, the camera's pose in the cloud's frame (a world-frame capture's), is recorded
    /// as PCD's VIEWPOINT and, in binary PLY, a `comment cloudgen viewpoint` line (`Pose.viewpoint`);
    /// nil writes the identity, as for a camera-frame cloud. PLY ascii, written by PCL, has none.
    ///
    /// Returns the number of points the file holds: the cloud's finite points, except for an
    /// organized PCD, which holds all width x height. An unorganized cloud without one finite
    /// point is bad input (there is nothing to write).
    @discardableResult
    public static func write(_ cloud: PointCloud, to path: String, format: CloudFileFormat, viewpoint: Pose? = nil) throws -> Int {
        guard cloud.count <= HeaderCheck.maxPoints else {
            throw CloudError.badInput("\(path): \(cloud.count) points is more than cloudgen writes (at most \(HeaderCheck.maxPoints))")
        }
        let shim = try PCLShim.entryPoints()
        var written: UInt64 = 0
        try AtomicFile.write(path) { temporary in
            var status = cg_status()
            withView(of: cloud, viewpoint: viewpoint) { _ = shim.write_cloud(temporary, format.shimFormat, $0, &written, &status) }
            if let error = status.error(about: path) { throw error }
            try checkWritten(temporary, writtenFor: path)
        }
        return Int(written)
    }

    /// Holds the written file against its own header before it takes the destination's name:
    /// PCL's ascii writers do not check their streams (a full disk would leave a short file).
    private static func checkWritten(_ temporary: String, writtenFor path: String) throws {
        do {
            _ = try HeaderCheck.check(path: temporary)
        } catch let error as CloudError {
            throw CloudError.io("\(path): the written file is incomplete (is the disk full?): \(error.message)")
        }
    }
}

extension CloudFileFormat {
    var shimFormat: cg_format {
        switch self {
        case .ply(.binary): return CG_FORMAT_PLY_BINARY
        case .ply(.ascii): return CG_FORMAT_PLY_ASCII
        case .pcd(.ascii): return CG_FORMAT_PCD_ASCII
        case .pcd(.binary): return CG_FORMAT_PCD_BINARY
        case .pcd(.compressed): return CG_FORMAT_PCD_BINARY_COMPRESSED
        }
    }
}
