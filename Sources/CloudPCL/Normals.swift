import CShims
import CloudCore

public enum Normals {
    public static let defaultMaxNeighbours = 30

    @discardableResult
    public static func estimate(_ cloud: inout PointCloud, radius: Float, maxNeighbours: Int = defaultMaxNeighbours,
                                viewpoint: SIMD3<Float> = .zero) throws -> [Float] {
        let grid = cloud.organized ?? PointCloud.Grid(width: cloud.count, height: 1)
        let count = cloud.count
        var status = cg_status()
        var curvature = [Float](repeating: .nan, count: count)
        var normals = [Float](repeating: .nan, count: 3 * count)
        var eye = [viewpoint.x, viewpoint.y, viewpoint.z]
        cloud.positions.withUnsafeBufferPointer { positions in
            var view = cg_cloud_view(positions: positions.baseAddress, colors: nil, normals: nil, count: UInt64(count),
                                     width: UInt32(grid.width), height: UInt32(grid.height))
            _ = cg_estimate_normals(&view, radius, UInt32(maxNeighbours), &eye, &normals, &curvature, &status)
        }
        if let error = status.error(about: "normals") { throw error }
        cloud.normals = normals
        return curvature
    }
}
