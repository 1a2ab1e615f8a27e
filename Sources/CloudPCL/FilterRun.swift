import CShims
import CloudCore
import SafeIO

extension CloudFilter {
    /// Runs the step on `cloud` and returns the result with the number of points it kept.
    ///
    /// With `keepGrid`, an organized cloud stays organized through steps that select points: the
    /// dropped pixels get NaN positions (and normals) and black colors, as back-projection leaves
    /// pixels without depth. Otherwise the kept points are gathered into an unorganized cloud.
    /// The voxel grid always returns an unorganized cloud.
    ///
    /// Errors are `CloudError.badInput` about `option` (the step as asked for, e.g. voxel
    /// 0.00001) that say what would work.
    public func apply(
        to cloud: PointCloud, keepGrid: Bool = false, viewpoint: Viewpoint = .camera,
        option: CloudError.Option
    ) throws -> (cloud: PointCloud, kept: Int) {
        if let problem { throw CloudError.badInput(.option(option), CloudError.Reason(problem)) }
        switch self {
        case .voxelGrid(let leaf):
            return try voxelGrid(cloud, leaf: leaf, option: option)
        case .normals(let radius):
            var result = cloud
            do {
                try Normals.estimate(&result, radius: radius, viewpoint: viewpoint.origin)
            } catch let error as CloudError {
                throw CloudError.badInput(.option(option), error.reason)
            }
            return (result, cloud.finiteCount)
        case .foreground:
            guard let grid = cloud.organized else {
                throw CloudError.badInput(
                    .option(option), "needs an organized cloud (a width x height depth grid), and this one is a plain list of points")
            }
            let (keep, kept) = ForegroundRule.mask(cloud, grid: grid, viewpoint: viewpoint)
            return (Self.select(cloud, keep: keep, kept: kept, keepGrid: keepGrid), kept)
        default:
            let shim = try PCLShim.entryPoints()
            var status = cg_status()
            var kept: UInt64 = 0
            let keep = [UInt8](unsafeUninitializedCapacity: cloud.count) { buffer, initialized in
                withView(of: cloud) { view in
                    let out = buffer.baseAddress
                    switch self {
                    case let .passThroughZ(min, max):
                        _ = shim.filter_pass_through_z(view, min, max, out, &kept, &status)
                    case let .cropBox(min, max):
                        var lo = [min.x, min.y, min.z]
                        var hi = [max.x, max.y, max.z]
                        _ = shim.filter_crop_box(view, &lo, &hi, out, &kept, &status)
                    case let .statisticalOutliers(k, stddev):
                        _ = shim.filter_statistical_outliers(view, Int32(clamping: k), stddev, out, &kept, &status)
                    case let .radiusOutliers(radius, minNeighbours):
                        _ = shim.filter_radius_outliers(view, radius, Int32(clamping: minNeighbours), out, &kept, &status)
                    case .voxelGrid, .foreground, .normals:
                        preconditionFailure("handled above")
                    }
                }
                initialized = status.code == Int32(CG_OK) ? cloud.count : 0
            }
            if let error = status.error(about: .option(option)) { throw error }
            return (Self.select(cloud, keep: keep, kept: Int(kept), keepGrid: keepGrid), Int(kept))
        }
    }

    private func voxelGrid(_ cloud: PointCloud, leaf: Float, option: CloudError.Option) throws -> (cloud: PointCloud, kept: Int) {
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

    /// The cloud with only the points `keep` marks: gathered into exactly sized arrays, or (for an
    /// organized cloud with `keepGrid`) in place, with the dropped pixels blanked.
    static func select(_ cloud: PointCloud, keep: [UInt8], kept: Int, keepGrid: Bool) -> PointCloud {
        if keepGrid, cloud.organized != nil {
            var result = cloud
            keep.withUnsafeBufferPointer { k in
                result.positions.withUnsafeMutableBufferPointer { p in
                    for i in 0..<k.count where k[i] == 0 {
                        p[3 * i] = .nan
                        p[3 * i + 1] = .nan
                        p[3 * i + 2] = .nan
                    }
                }
                if result.colors != nil {
                    result.colors!.withUnsafeMutableBufferPointer { c in
                        for i in 0..<k.count where k[i] == 0 {
                            c[3 * i] = 0
                            c[3 * i + 1] = 0
                            c[3 * i + 2] = 0
                        }
                    }
                }
                if result.normals != nil {
                    result.normals!.withUnsafeMutableBufferPointer { m in
                        for i in 0..<k.count where k[i] == 0 {
                            m[3 * i] = .nan
                            m[3 * i + 1] = .nan
                            m[3 * i + 2] = .nan
                        }
                    }
                }
                if result.curvature != nil {
                    result.curvature!.withUnsafeMutableBufferPointer { c in
                        for i in 0..<k.count where k[i] == 0 { c[i] = .nan }
                    }
                }
            }
            return result
        }
        func gather<T>(_ values: [T]) -> [T] {
            [T](unsafeUninitializedCapacity: 3 * kept) { out, initialized in
                keep.withUnsafeBufferPointer { k in
                    values.withUnsafeBufferPointer { v in
                        var o = 0
                        for i in 0..<k.count where k[i] != 0 {
                            out[o] = v[3 * i]
                            out[o + 1] = v[3 * i + 1]
                            out[o + 2] = v[3 * i + 2]
                            o += 3
                        }
                    }
                }
                initialized = 3 * kept
            }
        }
        func gatherScalars(_ values: [Float]) -> [Float] {
            [Float](unsafeUninitializedCapacity: kept) { out, initialized in
                keep.withUnsafeBufferPointer { k in
                    values.withUnsafeBufferPointer { v in
                        var o = 0
                        for i in 0..<k.count where k[i] != 0 {
                            out[o] = v[i]
                            o += 1
                        }
                    }
                }
                initialized = kept
            }
        }
        return PointCloud(
            positions: gather(cloud.positions), colors: cloud.colors.map(gather), normals: cloud.normals.map(gather),
            curvature: cloud.curvature.map(gatherScalars))
    }
}
