#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The depth image's key: the jet ramp from the nearest depth (left, red) to the farthest (right,
/// blue), with ticks at round numbers of metres, labelled, on a band below the image.
struct ScaleBar {
    var range: ClosedRange<Float>
    var width: Int
    /// Pixel size of one font pixel.
    var scale: Int { width >= 700 ? 3 : width >= 400 ? 2 : 1 }
    var margin: Int { 6 * scale }
    var barHeight: Int { 6 * scale }
    var tickLength: Int { 3 * scale }
    var height: Int { margin + barHeight + tickLength + scale + PixelFont.glyphHeight * scale + margin }

    /// Round tick positions in metres: a 1, 2 or 5 step giving about five ticks.
    var ticks: (values: [Float], decimals: Int) {
        let span = Double(range.upperBound - range.lowerBound)
        guard span > 0 else { return ([range.lowerBound], 2) }
        let rough = span / 5
        let power = pow(10, floor(log10(rough)))
        let step = [1.0, 2, 5, 10].map { $0 * power }.first { $0 >= rough } ?? 10 * power
        // The range comes from Float depths: 1.2 m is 1.2000000477, which must still tick at 1.2.
        let first = ceil(Double(range.lowerBound) / step - 1e-6) * step
        let values = stride(from: first, through: Double(range.upperBound) + step * 1e-6, by: step).map { Float($0) }
        return (values, max(0, Int(-floor(log10(step) + 1e-9))))
    }

    func draw(into canvas: inout Canvas, top: Int) {
        let white = SIMD3<UInt8>(235, 235, 235)
        let unit = " m"
        let right = width - margin - PixelFont.width(unit, scale: scale)
        let (left, barTop) = (margin, top + margin)
        let length = max(right - left, 1)
        for x in left..<right {
            let c = Colormap.jet(1 - Float(x - left) / Float(max(length - 1, 1)))
            canvas.fill(x: x, y: barTop, width: 1, height: barHeight, color: c)
        }
        let span = range.upperBound - range.lowerBound
        let labelTop = barTop + barHeight + tickLength + scale
        let (values, decimals) = ticks
        var lastEnd = Int.min
        for value in values {
            let fraction = span > 0 ? (value - range.lowerBound) / span : 0
            let x = left + Int((fraction * Float(length - 1)).rounded())
            canvas.fill(x: x - scale / 2, y: barTop + barHeight, width: scale, height: tickLength, color: white)
            let label = format(value, decimals: decimals)
            let labelWidth = PixelFont.width(label, scale: scale)
            let labelX = min(max(x - labelWidth / 2, 0), right - labelWidth)
            // Skip a label that would run into the previous one.
            guard labelX > lastEnd + 2 * scale else { continue }
            PixelFont.draw(label, x: labelX, y: labelTop, scale: scale, color: white, into: &canvas)
            lastEnd = labelX + labelWidth
        }
        PixelFont.draw(unit, x: right, y: labelTop, scale: scale, color: white, into: &canvas)
    }

    /// `value` with `decimals` places, as the tick labels show it (the floor plan's scale bar too).
    func format(_ value: Float, decimals: Int) -> String {
        var text = String(Double(value).rounded(toPlaces: decimals))
        if decimals == 0, text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }
}

extension Double {
    fileprivate func rounded(toPlaces places: Int) -> Double {
        let p = pow(10, Double(places))
        return (self * p).rounded() / p
    }
}
