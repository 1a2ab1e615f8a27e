/// Maps a value in 0...1 to an sRGB color.
public enum Colormap {
    /// MATLAB's classic "jet": dark blue, blue, cyan, yellow, red, dark red, as piecewise-linear
    /// ramps of each channel. Depth images use it reversed (red near, blue far), as the depth
    /// streaming sample did.
    @inline(__always)
    public static func jet(_ t: Float) -> SIMD3<UInt8> {
        let v = t.isNaN ? 0 : Swift.min(Swift.max(t, 0), 1)
        func ramp(_ centre: Float) -> UInt8 {
            // Each channel is a trapezoid: 1 within 0.125 of its centre, falling to 0 at 0.375.
            let level = Swift.min(Swift.max(1.5 - 4 * abs(v - centre), 0), 1)
            return UInt8(level * 255 + 0.5)
        }
        return SIMD3(ramp(0.75), ramp(0.5), ramp(0.25))
    }

    private static let heightStops: [SIMD3<Float>] = [
        SIMD3(40, 30, 110), SIMD3(30, 110, 160), SIMD3(50, 170, 110),
        SIMD3(170, 210, 60), SIMD3(250, 240, 170)
    ]

    /// For heights: dark blue through teal and green to a light yellow, brightness rising with the
    /// value so that the order still reads in grayscale. Stops chosen by eye for this renderer.
    public static func height(_ t: Float) -> SIMD3<UInt8> {
        let v = t.isNaN ? 0 : Swift.min(Swift.max(t, 0), 1)
        let stops = heightStops
        let scaled = v * Float(stops.count - 1)
        let i = Swift.min(Int(scaled), stops.count - 2)
        let c = stops[i] + (stops[i + 1] - stops[i]) * (scaled - Float(i))
        return SIMD3(UInt8(c.x.rounded()), UInt8(c.y.rounded()), UInt8(c.z.rounded()))
    }
}
