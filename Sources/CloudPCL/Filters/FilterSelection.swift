import CShims
import CloudCore
import SafeIO

extension FilterKind {
    /// Runs a PCL selection through the shim: `call` fills one byte per point (1 kept) and the
    /// count kept, and the cloud is cut to those points (or blanked in place, keeping its grid).
    static func shimSelection(
        _ input: FilterInput,
        _ call: (cg_shim_entry_points, UnsafePointer<cg_cloud_view>, UnsafeMutablePointer<UInt8>?, inout UInt64, inout cg_status) -> Void
    ) throws -> (cloud: PointCloud, kept: Int) {
        let shim = try PCLShim.entryPoints()
        let cloud = input.cloud
        var status = cg_status()
        var kept: UInt64 = 0
        let keep = [UInt8](unsafeUninitializedCapacity: cloud.count) { buffer, initialized in
            withView(of: cloud) { view in call(shim, view, buffer.baseAddress, &kept, &status) }
            initialized = status.code == Int32(CG_OK) ? cloud.count : 0
        }
        if let error = status.error(about: .option(input.option)) { throw error }
        return (CloudFilter.select(cloud, keep: keep, kept: Int(kept), keepGrid: input.keepGrid), Int(kept))
    }
}

extension CloudFilter {
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
