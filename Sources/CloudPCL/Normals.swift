import CShims
import CloudCore
import SafeIO

/// Surface normals through the shim, for `--normals` and whatever needs oriented normals
/// (surface reconstruction, plane finding).
///
/// Each point's normal is fitted to the surface within `radius` of it and turned toward the
/// viewpoint. An organized cloud (`cloud.organized`) goes through PCL's integral images, a
/// window per pixel that spans the radius on the surface and stops at depth jumps: its cost does
/// not grow with the radius, and every point of the window counts. An unorganized cloud takes
/// the nearest `maxNeighbours` points within the radius (Open3D's hybrid search) on every core.
/// Where a capture's grid is at hand, estimate before dropping its empty pixels: the grid path is
/// faster, and it fits the whole radius rather than the nearest 30 points, which on a dense frame
/// lie within a few millimetres and follow the depth noise.
///
/// A point gets NaN normals when its position is not finite, or when the points within the radius
/// (itself included) are fewer than 3 or lie on a line. Each point also gets PCL's curvature (the
/// surface variation of the same neighbourhood: 0 on a plane, up to 1/3), which PCL's region
/// growing and feature code read from the PCD's curvature field; NaN where the normal is.
public enum Normals {
    /// Open3D's and PCL's customary cap.
    public static let defaultMaxNeighbours = 30
    /// A cap beyond which the fit costs much and gains nothing.
    public static let maxNeighboursLimit = 10_000

    /// Sets `cloud.normals` (nx ny nz per point) and `cloud.curvature`, each fitted to the points within `radius`
    /// metres and facing `viewpoint`: the camera, which is the origin of a camera-frame cloud
    /// and the camera's position (its pose's translation) for a world-frame one.
    public static func estimate(
        _ cloud: inout PointCloud, radius: Float, maxNeighbours: Int = defaultMaxNeighbours,
        viewpoint: SIMD3<Float> = .zero
    ) throws {
        try validate(radius: radius, maxNeighbours: maxNeighbours, viewpoint: viewpoint)
        guard cloud.count <= Int(Int32.max) else {
            throw CloudError.badInput("\(cloud.count) points is more than normal estimation indexes (at most \(Int32.max))")
        }
        let grid = cloud.organized ?? PointCloud.Grid(width: cloud.count, height: 1)
        let count = cloud.count
        let shim = try PCLShim.entryPoints()
        var status = cg_status()
        var eye = [viewpoint.x, viewpoint.y, viewpoint.z]
        // The shim writes every point's normal and curvature (NaN where it has none), so the
        // arrays start uninitialized; on failure they are thrown away.
        var curvature = [Float](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
        let normals = cloud.positions.withUnsafeBufferPointer { positions in
            curvature.withUnsafeMutableBufferPointer { curvature in
                [Float](unsafeUninitializedCapacity: 3 * count) { buffer, initialized in
                    var view = cg_cloud_view(
                        positions: positions.baseAddress, colors: nil, normals: nil, curvature: nil,
                        count: UInt64(count), width: UInt32(grid.width), height: UInt32(grid.height))
                    _ = shim.estimate_normals(
                        &view, radius, UInt32(maxNeighbours), &eye, buffer.baseAddress, curvature.baseAddress, &status)
                    initialized = status.code == Int32(CG_OK) ? 3 * count : 0
                }
            }
        }
        if let error = status.error(about: nil, doing: "normal estimation: ") { throw error }
        cloud.normals = normals
        cloud.curvature = curvature
    }

    /// Refuses what the estimate cannot use, saying what would work.
    public static func validate(radius: Float, maxNeighbours: Int, viewpoint: SIMD3<Float> = .zero) throws {
        guard radius.isFinite, radius > 0 else {
            throw CloudError.badInput(
                "normal radius \(radius) is not a positive number of metres; 0.05 (5 cm) suits room scans, "
                    + "and 3 to 5 times the point spacing suits any cloud")
        }
        guard maxNeighbours >= 3 else {
            throw CloudError.badInput(
                "\(maxNeighbours) neighbours cannot fix a plane: at least 3 are needed; "
                    + "\(defaultMaxNeighbours) is usual")
        }
        guard maxNeighbours <= maxNeighboursLimit else {
            throw CloudError.badInput(
                "\(maxNeighbours) neighbours is more than \(maxNeighboursLimit), which gains nothing "
                    + "over a larger radius; \(defaultMaxNeighbours) is usual")
        }
        guard viewpoint.x.isFinite, viewpoint.y.isFinite, viewpoint.z.isFinite else {
            throw CloudError.badInput(
                "the viewpoint \(viewpoint) for orienting normals is not finite; the camera's position "
                    + "is (0, 0, 0) in the camera frame")
        }
    }
}
