import CloudMeasure

extension RoomScan {
    /// What a capture left in `collector` as a scan to measure: its cloud, its cameras, up when the
    /// source knew it, and which frame each fused point came from. nil when it gave no cloud.
    public static func collected(_ collector: CloudCollector, name: String) -> RoomScan? {
        guard let cloud = collector.cloud else { return nil }
        return RoomScan(
            name: name, cloud: cloud, cameras: collector.cameras, sourceUp: collector.up,
            frameStarts: collector.frameStarts.isEmpty ? nil : collector.frameStarts)
    }
}
