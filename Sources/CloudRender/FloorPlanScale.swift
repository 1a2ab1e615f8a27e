/// The floor plan's map scale: a bar of alternating dark and light blocks one round length each
/// (1, 2 or 5 times a power of ten metres, chosen by the depth key's `ScaleBar.ticks`), labelled
/// at the block ends like the depth key, in the picture's bottom-left corner.
struct FloorPlanScale {
    let textScale: Int
    let pixelsPerMetre: Double

    var barHeight: Int { 2 * textScale + 2 }
    var labelGap: Int { 2 * textScale }
    /// Rows the scale takes below the plan, margins included.
    var height: Int { 2 * padding + barHeight + labelGap + PixelFont.glyphHeight * textScale }
    var padding: Int { 3 * textScale }

    /// The depth key over the metres that `longest` pixels span: its ticks are the bar's block
    /// ends (the last one its end), its format their labels. Nil when the span is not a number.
    func key(longest: Int) -> ScaleBar? {
        let metres = Float(Double(longest) / pixelsPerMetre)
        guard metres.isFinite, metres > 0 else { return nil }
        return ScaleBar(range: 0...metres, width: longest)
    }

    /// Draws the bar with its left end at `left`, its top `padding` below `top`, at most
    /// `longest` pixels long.
    func draw(into canvas: inout Canvas, left: Int, top: Int, longest: Int, ink: SIMD3<UInt8>, paper: SIMD3<UInt8>) {
        guard let key = key(longest: longest) else { return }
        let (values, decimals) = key.ticks
        guard values.count >= 2 else { return }
        let barTop = top + padding
        let positions = values.map { left + Int((Double($0) * pixelsPerMetre).rounded()) }
        // Outline, then every other block filled.
        canvas.fill(x: left - 1, y: barTop - 1, width: positions.last! - left + 2, height: barHeight + 2, color: ink)
        for (index, (start, end)) in zip(positions, positions.dropFirst()).enumerated() {
            canvas.fill(x: start, y: barTop, width: end - start, height: barHeight, color: index % 2 == 0 ? ink : paper)
        }
        let labelTop = barTop + barHeight + labelGap
        var lastEnd = Int.min
        for (index, (value, x)) in zip(values, positions).enumerated() {
            // + 0 turns the first tick's −0 (ScaleBar rounds 0 up from just below) into 0.
            var label = key.format(value + 0, decimals: decimals)
            if index == values.count - 1 { label += " m" }
            let labelX = Swift.max(0, x - PixelFont.width(String(label.prefix { $0 != " " }), scale: textScale) / 2)
            // Skip a label that would run into the previous one, but always name the bar's length.
            guard labelX > lastEnd + 2 * textScale || index == values.count - 1 else { continue }
            PixelFont.draw(label, x: labelX, y: labelTop, scale: textScale, color: ink, into: &canvas)
            lastEnd = labelX + PixelFont.width(label, scale: textScale)
        }
    }
}
