/// A coordinate axis with a sign, for "which way is up": `-y` for camera-frame clouds (OpenCV's y
/// points down), `+z` for world-frame rooms.
public struct UpAxis: Equatable, Sendable, CustomStringConvertible {
    /// 0 x, 1 y, 2 z.
    public var axis: Int
    public var negative: Bool

    public static let cameraFrame = UpAxis(axis: 1, negative: true)
    public static let worldFrame = UpAxis(axis: 2, negative: false)

    public init(axis: Int, negative: Bool) {
        precondition((0...2).contains(axis), "axis is 0, 1 or 2")
        self.axis = axis
        self.negative = negative
    }

    /// "+z", "z", "-y", "+X"...
    public init?(_ text: String) {
        var t = Substring(text.lowercased())
        var negative = false
        if let sign = t.first, sign == "+" || sign == "-" {
            negative = sign == "-"
            t = t.dropFirst()
        }
        guard t.count == 1, let axis = ["x", "y", "z"].firstIndex(of: String(t)) else { return nil }
        self.init(axis: axis, negative: negative)
    }

    public var vector: SIMD3<Float> {
        var v = SIMD3<Float>(repeating: 0)
        v[axis] = negative ? -1 : 1
        return v
    }

    public var description: String { (negative ? "-" : "+") + ["x", "y", "z"][axis] }
}
