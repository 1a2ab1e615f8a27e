import CShims
import CloudCore

/// Runs `body` with a view of the cloud's buffers as the shim reads them: pointers into the
/// arrays themselves, no copy. An unorganized cloud is one row. `viewpoint` (for the writer) is
/// where the camera stood in the cloud's frame; nil is the identity.
func withView<R>(of cloud: PointCloud, viewpoint: Pose? = nil, _ body: (UnsafePointer<cg_cloud_view>) -> R) -> R {
    let grid = cloud.organized ?? PointCloud.Grid(width: cloud.count, height: 1)
    return cloud.positions.withUnsafeBufferPointer { positions in
        withOptionalBuffer(cloud.colors) { colors in
            withOptionalBuffer(cloud.normals) { normals in
                withOptionalBuffer(cloud.curvature) { curvature in
                    withOptionalBuffer(viewpoint?.viewpoint) { viewpoint in
                        var view = cg_cloud_view(positions: positions.baseAddress, colors: colors, normals: normals,
                                                 curvature: curvature, viewpoint: viewpoint, count: UInt64(cloud.count),
                                                 width: UInt32(grid.width), height: UInt32(grid.height))
                        return body(&view)
                    }
                }
            }
        }
    }
}

private func withOptionalBuffer<T, R>(_ array: [T]?, _ body: (UnsafePointer<T>?) -> R) -> R {
    guard let array else { return body(nil) }
    return array.withUnsafeBufferPointer { body($0.baseAddress) }
}

/// One channel of a cloud the shim holds (a file read, a filter's result), copied out by one
/// shim call into an uninitialized array of `count` values (no zero-filling first); nil when the
/// channel is not `wanted`. A failed call, reported in `status`, throws about `subject`.
func shimChannel<T>(_ wanted: Bool, count: Int, status: inout cg_status, about subject: String,
                    _ copy: (UnsafeMutablePointer<T>, inout cg_status) -> Void) throws -> [T]? {
    guard wanted else { return nil }
    let values = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
        if let base = buffer.baseAddress { copy(base, &status) }
        initialized = status.code == Int32(CG_OK) ? count : 0
    }
    if let error = status.error(about: subject) { throw error }
    return values
}
