import CShims
import CloudCore

/// A cloud read from a file, with what the file says about itself.
public struct CloudFile: Equatable, Sendable {
    public var cloud: PointCloud
    /// The fields as PCL decoded them, e.g. ["x", "y", "z", "rgb"]: a PLY's uchar red green blue
    /// become "rgb" ("rgba" with alpha) and its nx ny nz become normal_x normal_y normal_z.
    public var fields: [String]
    /// The header as the file spells it (format, field names, grid).
    public var header: CloudFileHeader

    public var format: CloudFileFormat { header.format }
}

/// Reads PCD (v.5 to v0.7; ascii, binary, binary_compressed) and PLY (ascii, binary) files
/// through PCL, after HeaderCheck has refused every header PCL would trust into a huge allocation.
public enum CloudReader {
    /// The header of the cloud file at `path`, checked against the file's size; no points are read.
    public static func header(_ path: String) throws -> CloudFileHeader {
        try HeaderCheck.check(path: path)
    }

    /// Reads the cloud at `path`: positions as float (whatever the file stores), colors from
    /// packed rgb / rgba or separate red green blue fields, normals from normal_x.. or nx.., and
    /// the curvature field beside normals; other fields (intensity, alpha, ...) are dropped. A PCL-organized file
    /// (height > 1) keeps its grid, with NaN positions where it has no point.
    public static func read(_ path: String) throws -> CloudFile {
        let header = try HeaderCheck.check(path: path)
        let shim = try PCLShim.entryPoints()
        var status = cg_status()
        var handle: OpaquePointer?
        let isPLY: Int32
        if case .ply = header.format { isPLY = 1 } else { isPLY = 0 }
        _ = shim.read_cloud(path, isPLY, &handle, &status)
        if let error = status.error(about: path) { throw error }
        defer { shim.cloud_free(handle) }

        var info = cg_cloud_info()
        _ = shim.cloud_get_info(handle, &info, &status)
        if let error = status.error(about: path) { throw error }
        // PCL may have taken the grid from somewhere the header check cannot see (a PLY
        // `element camera`); the shim checked it against the data PCL actually holds.
        guard info.count <= UInt64(HeaderCheck.maxPoints) else {
            throw CloudError.badInput("\(path): \(info.count) points is more than cloudgen reads (at most \(HeaderCheck.maxPoints))")
        }
        let count = Int(info.count)

        // One shim call per channel.
        func channel<T>(_ wanted: Int32, values: Int, _ copy: (UnsafeMutablePointer<T>, inout cg_status) -> Void) throws -> [T]? {
            try shimChannel(wanted != 0, count: values, status: &status, about: path, copy)
        }
        let positions: [Float] = try channel(1, values: 3 * count) { _ = shim.cloud_copy(handle, $0, nil, nil, nil, info.count, &$1) } ?? []
        let colors: [UInt8]? = try channel(info.has_colors, values: 3 * count) { _ = shim.cloud_copy(handle, nil, $0, nil, nil, info.count, &$1) }
        let normals: [Float]? = try channel(info.has_normals, values: 3 * count) { _ = shim.cloud_copy(handle, nil, nil, $0, nil, info.count, &$1) }
        let curvature: [Float]? = try channel(info.has_curvature, values: count) { _ = shim.cloud_copy(handle, nil, nil, nil, $0, info.count, &$1) }

        let grid = info.is_organized != 0 ? PointCloud.Grid(width: Int(info.width), height: Int(info.height)) : nil
        let fields = String(cString: info.field_names).split(separator: ",").map(String.init)
        return CloudFile(cloud: PointCloud(positions: positions, colors: colors, normals: normals, curvature: curvature,
                                                     organized: grid),
                         fields: fields, header: header)
    }
}
