import CloudCore
import CloudFiles
import CloudMeasure

extension RoomScan {
    /// A cloud file as a scan to measure: a world-frame file's viewpoint is the camera that took
    /// it. `cloudgen measure FILE` and the service's measure route both read their clouds here.
    public static func reading(_ path: String, name: String? = nil) throws -> RoomScan {
        let loaded = try CloudReader.read(path)
        return RoomScan(name: name ?? path, cloud: loaded.cloud, cameras: [loaded.header.viewpoint ?? .identity])
    }
}
