import CShims
import CloudCore
import SafeIO

/// PCL `VoxelGrid` with a cubic leaf in metres: one point per occupied voxel at the centroid of its
/// points, colors averaged (truncated, as PCL does), normals averaged and renormalized. It makes new
/// points, so an organized cloud's grid ends here.
extension FilterKind {
    public static let voxel = FilterKind(
        name: "voxel", form: "LEAF", defaultValue: nil,
        summary: "Downsample to one point per LEAF-metre voxel at the centroid of its points, colors averaged (PCL VoxelGrid).",
        grid: .drops, listed: true, flagged: true,
        parse: { numbers, bad in
            guard numbers.count == 1, let leaf = numbers[0] else { throw bad("needs the leaf size in metres, e.g. 0.01 (1 cm)") }
            return [Double(Float(leaf))]
        },
        problem: { values in
            let leaf = Float(values[0])
            return leaf.isFinite && leaf > 0 ? nil : "the leaf must be a positive number of metres, e.g. 0.01 (1 cm)"
        },
        parameters: { ["leaf": .number(Float($0[0]))] },
        // The TUM frame's per-point time (248,250 points; 2-core CI machine, release build).
        nanosecondsPerPoint: { _ in 200 }, bytesPerPoint: { _, _ in 55 },
        run: { values, input in try voxelGrid(input.cloud, leaf: Float(values[0]), option: input.option) })

    private static func voxelGrid(_ cloud: PointCloud, leaf: Float, option: CloudError.Option) throws -> (cloud: PointCloud, kept: Int) {
        let shim = try PCLShim.entryPoints()
        var status = cg_status()
        var handle: OpaquePointer?
        var count: UInt64 = 0
        withView(of: cloud) { view in
            _ = shim.filter_voxel_grid(view, leaf, &handle, &count, &status)
        }
        if let error = status.error(about: .option(option)) { throw error }
        defer { shim.filtered_cloud_free(handle) }
        let n = Int(count)
        // One shim call per channel.
        func channel<T>(_ wanted: Bool, values: Int, _ copy: (UnsafeMutablePointer<T>, inout cg_status) -> Void) throws -> [T]? {
            try shimChannel(wanted, count: values, status: &status, about: option, copy)
        }
        let positions: [Float] =
            try channel(true, values: 3 * n) { _ = shim.filtered_cloud_copy(handle, $0, nil, nil, nil, count, &$1) } ?? []
        let colors: [UInt8]? = try channel(cloud.colors != nil, values: 3 * n) {
            _ = shim.filtered_cloud_copy(handle, nil, $0, nil, nil, count, &$1)
        }
        let normals: [Float]? = try channel(cloud.normals != nil, values: 3 * n) {
            _ = shim.filtered_cloud_copy(handle, nil, nil, $0, nil, count, &$1)
        }
        let curvature: [Float]? = try channel(cloud.curvature != nil, values: n) {
            _ = shim.filtered_cloud_copy(handle, nil, nil, nil, $0, count, &$1)
        }
        return (PointCloud(positions: positions, colors: colors, normals: normals, curvature: curvature), n)
    }
}

extension CloudFilter {
    public static func voxelGrid(leaf: Float) -> CloudFilter { CloudFilter(.voxel, [Double(leaf)]) }
}
