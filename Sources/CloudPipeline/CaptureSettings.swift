/// `--range MIN,MAX` (the service's `range` field): depth limits in metres along the optical axis;
/// MAX may be `inf`.
public struct DepthRange: Sendable {
    public var limits: ClosedRange<Float>

    /// What a range must be, as both doors refuse one that is not.
    public static let rule = "needs MIN,MAX in metres with 0 <= MIN <= MAX, e.g. 0.3,4 (MAX may be inf)"

    public init?(text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, let lo = Float(parts[0]), let hi = Float(parts[1]),
            lo.isFinite, lo >= 0, !hi.isNaN, hi >= lo
        else { return nil }
        limits = lo...hi
    }
}

/// The frame points are written in.
public enum OutputFrame: String, CaseIterable, Encodable, Sendable {
    /// x right, y down, z forward from the camera that took the frame.
    case camera
    /// The source's world frame (rooms: origin at a floor corner, z up).
    case world
}
