#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CShims
import CloudCore

/// Writes clouds as PLY or PCD through the shim, atomically: the shim writes a temporary file in
/// the destination's folder (binary encodings itself, ascii through PCL's writers), which is
/// checked and then renamed over the destination; on any failure it is removed, so a half-written
/// cloud file never exists under the destination's name.
public enum CloudWriter {
    /// Writes `cloud` to `path` in the format its extension names (.ply / .pcd) and `encoding`.
    public static func write(_ cloud: PointCloud, to path: String, encoding: CloudEncoding = .binary) throws {
        try write(cloud, to: path, format: CloudFileFormat(path: path, encoding: encoding))
    }

    /// Writes `cloud` to `path` in `format`, whatever the extension.
    ///
    /// Fields: x y z, rgb when the cloud has colors, normal_x normal_y normal_z curvature (0) when
    /// it has normals; PLY spells them red green blue (uchar) and nx ny nz, without PCL's
    /// `element camera`. An organized cloud keeps WIDTH x HEIGHT in PCD; in PLY its NaN points
    /// are left out and PCL's range_grid element keeps the grid (PCL reads it back organized,
    /// Open3D and plyfile read the valid points). Floats keep every bit in binary files and PCD
    /// ascii (9 significant digits); PCL's PLY ascii writer prints 6. Binary and
    /// binary_compressed PCD are byte for byte what PCL's PCDWriter writes, without its padding.
    public static func write(_ cloud: PointCloud, to path: String, format: CloudFileFormat) throws {
        guard cloud.count <= HeaderCheck.maxPoints else {
            throw CloudError.badInput("\(path): \(cloud.count) points is more than cloudgen writes (at most \(HeaderCheck.maxPoints))")
        }
        let grid = cloud.organized ?? PointCloud.Grid(width: cloud.count, height: 1)
        let temporary = try TemporaryFile(beside: path)
        var renamed = false
        defer { if !renamed { temporary.remove() } }

        var status = cg_status()
        cloud.positions.withUnsafeBufferPointer { positions in
            withOptionalBuffer(cloud.colors) { colors in
                withOptionalBuffer(cloud.normals) { normals in
                    var view = cg_cloud_view(positions: positions.baseAddress, colors: colors, normals: normals,
                                             count: UInt64(cloud.count), width: UInt32(grid.width), height: UInt32(grid.height))
                    cg_write_cloud(temporary.path, format.shimFormat, &view, &status)
                }
            }
        }
        if let error = status.error(about: path) { throw error }
        try checkWritten(temporary.path, writtenFor: path)
        guard rename(temporary.path, path) == 0 else {
            throw CloudError.io("\(path): cannot rename the finished temporary file into place: \(String(cString: strerror(errno)))")
        }
        renamed = true
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

/// `.NAME.tmp-PID-RANDOM` next to the destination, created empty with O_EXCL, so that it is ours
/// alone, gets the permissions a new file gets (PCL's writers, which open it by name, keep them),
/// and a missing or read-only folder fails before the shim runs.
private struct TemporaryFile {
    let path: String

    init(beside destination: String) throws {
        let slash = destination.lastIndex(of: "/")
        let folder = slash.map { String(destination[...$0]) } ?? ""
        let name = slash.map { String(destination[destination.index(after: $0)...]) } ?? destination
        guard !name.isEmpty else { throw CloudError.badInput("\(destination): not a file path (it ends with '/')") }
        path = "\(folder).\(name).tmp-\(getpid())-\(String(UInt32.random(in: .min ... .max), radix: 16))"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else {
            let code = errno
            let place = folder.isEmpty ? "the current folder" : "folder \(folder)"
            if code == ENOENT || code == ENOTDIR {
                throw CloudError.io("\(destination): cannot write: \(place) does not exist")
            }
            throw CloudError.io("\(destination): cannot write into \(place): \(String(cString: strerror(code)))")
        }
        close(fd)
    }

    func remove() {
        unlink(path)
    }
}

private func withOptionalBuffer<T, R>(_ array: [T]?, _ body: (UnsafePointer<T>?) -> R) -> R {
    guard let array else { return body(nil) }
    return array.withUnsafeBufferPointer { body($0.baseAddress) }
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
