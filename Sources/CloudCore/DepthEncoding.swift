/// How a depth plane stores its samples. The four floating-point forms are AVFoundation's
/// (kCVPixelFormatType_DepthFloat16/32, DisparityFloat16/32); the integer form is what Kinect-class
/// cameras and datasets store (millimetres: 1000 units per metre, TUM: 5000).
public enum DepthEncoding: Equatable, Sendable, CustomStringConvertible {
    /// Metres along the optical axis.
    case depthFloat16, depthFloat32
    /// Inverse metres (1/z). Zero, negative or non-finite disparity has no depth.
    case disparityFloat16, disparityFloat32
    /// Unsigned integers, `unitsPerMetre` of them to a metre; 0 means no depth.
    case uint16(unitsPerMetre: Double)

    public var bytesPerSample: Int {
        switch self {
        case .depthFloat16, .disparityFloat16, .uint16: return 2
        case .depthFloat32, .disparityFloat32: return 4
        }
    }

    /// Name used in `--json` output and messages; an integer encoding's scale is `unitsPerMetre`.
    public var description: String {
        switch self {
        case .depthFloat16: return "depthFloat16"
        case .depthFloat32: return "depthFloat32"
        case .disparityFloat16: return "disparityFloat16"
        case .disparityFloat32: return "disparityFloat32"
        case .uint16: return "uint16"
        }
    }

    /// Whether `unitsPerMetre` can scale integer depth: positive, and a normal, finite Float,
    /// because the division happens in single precision (1e-50 would become 0 there).
    public static func isUsableScale(_ unitsPerMetre: Double) -> Bool {
        unitsPerMetre > 0 && Float(unitsPerMetre).isNormal && Float(unitsPerMetre).isFinite
    }

    /// The factor that turns a stored integer into metres, or nil for floating-point planes.
    public var unitsPerMetre: Double? {
        if case .uint16(let scale) = self { return scale }
        return nil
    }
}
