#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many plan points fall in each cell of a grid laid over the picture: the floor plan's point
/// layers. One pass over the points into one counter array, then passes over the cells; nothing
/// is allocated per point.
struct FloorPlanOccupancy {
    /// Pixels on a side of one cell: at least one point spacing, so that a sampled floor reads as
    /// a surface rather than as dust.
    let cell: Int
    let columns: Int
    let rows: Int
    private(set) var counts: [UInt32]
    private(set) var largest: UInt32

    /// The cell that holds about one point of a floor sampled every `spacing` metres, from
    /// `finest` (the picture's own detail) up to 6 pixels (beyond that the floor is too sparse to
    /// look like one anyway, and blocks would hide the walls' corners).
    static func cell(spacing: Double?, pixelsPerMetre: Double, finest: Int) -> Int {
        guard let spacing else { return finest }
        let pixels = (spacing * pixelsPerMetre).rounded(.up)
        return pixels.isFinite ? Int(Swift.min(6, Swift.max(Double(finest), pixels))) : finest
    }

    init(_ points: [SIMD2<Float>], frame: FloorPlanFrame, width: Int, height: Int, cell: Int) {
        self.cell = cell
        columns = (width + cell - 1) / cell
        rows = (height + cell - 1) / cell
        var counts = [UInt32](repeating: 0, count: columns * rows)
        // The frame's mapping with the cell size folded in, so that a point's cell costs a
        // multiply and a conversion rather than an integer division.
        let perCell = 1 / Double(cell)
        let (limitX, limitY) = (Double(width) * perCell, Double(height) * perCell)
        let (scale, centre, origin) = (frame.pixelsPerMetre * perCell, frame.centre, frame.pixelCentre * perCell)
        let columns = columns
        points.withUnsafeBufferPointer { points in
            counts.withUnsafeMutableBufferPointer { counts in
                for p in points {
                    let x = origin.x + (Double(p.x) - centre.x) * scale
                    let y = origin.y - (Double(p.y) - centre.y) * scale
                    // The comparisons are false for NaN, so non-finite points drop out here too.
                    guard x >= 0, x < limitX, y >= 0, y < limitY else { continue }
                    let at = Int(y) * columns + Int(x)
                    // Saturating: no cell holds 4e9 points in practice, but one must not trap.
                    if counts[at] != .max { counts[at] += 1 }
                }
            }
        }
        self.counts = counts
        largest = counts.max() ?? 0
    }

    /// Per cell, 0 when empty up to 1 for the fullest: logarithmic, so that a floor seen from
    /// afar (few points a cell) is not lost beside the spot under the camera (many).
    func densities() -> [Float] {
        let scale = largest > 1 ? 1 / log2(Float(largest) + 1) : 1
        return counts.map { $0 == 0 ? 0 : largest > 1 ? log2(Float($0) + 1) * scale : 1 }
    }

    /// Mixes every occupied cell's pixels towards `color`, by `alpha(density)`. With `fillingHoles`
    /// an empty cell with at least 5 of its 8 neighbours occupied is drawn too, at their mean
    /// density: a sampled floor leaves such holes at random, while a cell just outside a straight
    /// edge has only 3 and one at a corner fewer, so the outline stays where the points end.
    func draw(into canvas: inout Canvas, fillingHoles: Bool, color: (Float) -> SIMD3<UInt8>, alpha: (Float) -> Float) {
        guard largest > 0 else { return }
        let densities = densities()
        for row in 0..<rows {
            for column in 0..<columns {
                var density = densities[row * columns + column]
                if density == 0 {
                    guard fillingHoles, let mean = Self.neighbourMean(densities, column: column, row: row, columns: columns, rows: rows)
                    else { continue }
                    density = mean
                }
                let (c, a) = (color(density), alpha(density))
                for y in (row * cell)..<Swift.min((row + 1) * cell, canvas.height) {
                    for x in (column * cell)..<Swift.min((column + 1) * cell, canvas.width) {
                        if a >= 1 { canvas.set(x, y, c) } else { canvas.blend(x, y, c, a) }
                    }
                }
            }
        }
    }

    /// The mean density of the occupied neighbours of a cell, when at least 5 of its 8 are.
    private static func neighbourMean(_ densities: [Float], column: Int, row: Int, columns: Int, rows: Int) -> Float? {
        var (occupied, total): (Int, Float) = (0, 0)
        for y in Swift.max(0, row - 1)...Swift.min(rows - 1, row + 1) {
            for x in Swift.max(0, column - 1)...Swift.min(columns - 1, column + 1) where densities[y * columns + x] > 0 {
                occupied += 1
                total += densities[y * columns + x]
            }
        }
        return occupied >= 5 ? total / Float(occupied) : nil
    }

    /// Points in the cells within `radius` cells of the pixel (x, y): which side of a wall the
    /// floor lies on.
    func points(near x: Double, _ y: Double, radius: Int) -> Int {
        guard x.isFinite, y.isFinite, x >= 0, y >= 0, x < Double(columns * cell), y < Double(rows * cell) else { return 0 }
        let (cx, cy) = (Int(x) / cell, Int(y) / cell)
        var total = 0
        for row in Swift.max(0, cy - radius)...Swift.min(rows - 1, cy + radius) {
            for column in Swift.max(0, cx - radius)...Swift.min(columns - 1, cx + radius) {
                total += Int(counts[row * columns + column])
            }
        }
        return total
    }
}
