/// Which way is up, as `measure --up` and the service's `up` parameter take it: found from the
/// data (`auto`), or an axis of the cloud's frame with its sign.
public enum UpChoice: String, CaseIterable, Sendable {
    case auto, x, y, z
    case minusX = "-x"
    case minusY = "-y"
    case minusZ = "-z"

    /// The direction, or nil for `auto`.
    public var vector: SIMD3<Double>? {
        switch self {
        case .auto: return nil
        case .x: return SIMD3(1, 0, 0)
        case .y: return SIMD3(0, 1, 0)
        case .z: return SIMD3(0, 0, 1)
        case .minusX: return SIMD3(-1, 0, 0)
        case .minusY: return SIMD3(0, -1, 0)
        case .minusZ: return SIMD3(0, 0, -1)
        }
    }
}
