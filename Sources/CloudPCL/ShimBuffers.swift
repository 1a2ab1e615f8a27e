import CShims
import CloudCore
import SafeIO

/// Runs `body` with a view of the cloud's buffers as the shim reads them: pointers into the
/// arrays themselves, no copy. An unorganized cloud is one row.
func withView<R>(of cloud: PointCloud, _ body: (UnsafePointer<cg_cloud_view>) -> R) -> R {
    let grid = cloud.organized ?? PointCloud.Grid(width: cloud.count, height: 1)
    return cloud.positions.withUnsafeBufferPointer { positions in
        withOptionalBuffer(cloud.colors) { colors in
            withOptionalBuffer(cloud.normals) { normals in
                withOptionalBuffer(cloud.curvature) { curvature in
                    var view = cg_cloud_view(
                        positions: positions.baseAddress, colors: colors, normals: normals,
                        curvature: curvature, count: UInt64(cloud.count),
                        width: UInt32(grid.width), height: UInt32(grid.height))
                    return body(&view)
                }
            }
        }
    }
}

private func withOptionalBuffer<T, R>(_ array: [T]?, _ body: (UnsafePointer<T>?) -> R) -> R {
    guard let array else { return body(nil) }
    return array.withUnsafeBufferPointer { body($0.baseAddress) }
}

/// One channel of a cloud the shim holds (a filter's result), copied out by one
/// shim call into an uninitialized array of `count` values (no zero-filling first); nil when the
/// channel is not `wanted`. A failed call, reported in `status`, throws about `subject`.
func shimChannel<T>(
    _ wanted: Bool, count: Int, status: inout cg_status, about subject: CloudError.Option,
    _ copy: (UnsafeMutablePointer<T>, inout cg_status) -> Void
) throws -> [T]? {
    guard wanted else { return nil }
    let values = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
        if let base = buffer.baseAddress { copy(base, &status) }
        initialized = status.code == Int32(CG_OK) ? count : 0
    }
    if let error = status.error(about: .option(subject)) { throw error }
    return values
}
