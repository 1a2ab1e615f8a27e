import CloudCore

@testable import CloudRender

/// Plans with known geometry and ways to read a rendered plan's pixels.
enum FloorPlanFixture {
    /// The rectangle 0...width by 0...depth, walls counter-clockwise from the bottom one, each
    /// labelled with its length, and its floor sampled every 2 cm.
    static func rectangle(width: Double = 4, depth: Double = 3, labelled: Bool = true) -> FloorPlan {
        let corners = [SIMD2(0, 0), SIMD2(width, 0), SIMD2(width, depth), SIMD2(0, depth)]
        let walls = corners.indices.map { i -> FloorPlan.Wall in
            let (a, b) = (corners[i], corners[(i + 1) % 4])
            let length = ((b - a) * (b - a)).sum().squareRoot()
            return FloorPlan.Wall(a: a, b: b, label: labelled ? String(format2(length)) + " m" : nil)
        }
        var floor: [SIMD2<Float>] = []
        for i in 0...Int(width * 50) {
            for j in 0...Int(depth * 50) { floor.append(SIMD2(Float(i) * 0.02, Float(j) * 0.02)) }
        }
        return FloorPlan(floorPoints: floor, walls: walls, caption: "\(format2(width)) x \(format2(depth)) m")
    }

    /// Two decimals, as the measurement labels its walls.
    static func format2(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = String(hundredths % 100)
        return "\(hundredths / 100).\(fraction.count == 1 ? "0" + fraction : fraction)"
    }
}

extension ColorImage {
    func pixel(_ x: Int, _ y: Int) -> SIMD3<UInt8> {
        let i = 3 * (y * width + x)
        return SIMD3(rgb[i], rgb[i + 1], rgb[i + 2])
    }

    func pixel(_ p: SIMD2<Double>) -> SIMD3<UInt8> { pixel(Int(p.x), Int(p.y)) }

    /// Wall lines, text and the scale bar are drawn in ink; floor, labels' backing and paper are light.
    func isDark(_ x: Int, _ y: Int) -> Bool { pixel(x, y).max() < 100 }

    /// Centres of the dark runs along row `y` (or column `x`), in order.
    func darkRuns(row y: Int) -> [Double] { runs((0..<width).map { isDark($0, y) }) }
    func darkRuns(column x: Int) -> [Double] { runs((0..<height).map { isDark(x, $0) }) }

    /// Lengths of the dark runs along row `y`.
    func darkRunLengths(row y: Int) -> [Int] {
        var lengths: [Int] = []
        var run = 0
        for x in 0..<width {
            if isDark(x, y) {
                run += 1
            } else if run > 0 {
                lengths.append(run)
                run = 0
            }
        }
        if run > 0 { lengths.append(run) }
        return lengths
    }

    /// Dark pixels in x0..<x1 by y0..<y1 (clipped to the picture).
    func darkCount(x0: Int, y0: Int, x1: Int, y1: Int) -> Int {
        var count = 0
        for y in max(0, y0)..<min(height, y1) {
            for x in max(0, x0)..<min(width, x1) where isDark(x, y) { count += 1 }
        }
        return count
    }

    private func runs(_ dark: [Bool]) -> [Double] {
        var centres: [Double] = []
        var start: Int?
        for (i, d) in (dark + [false]).enumerated() {
            if d, start == nil { start = i }
            if !d, let s = start {
                centres.append(Double(s + i) / 2)
                start = nil
            }
        }
        return centres
    }
}
