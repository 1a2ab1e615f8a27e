import Foundation

/// How the walls join: each wall's neighbour at its end, and whether they close around the room.
struct RoomOutline {
    /// A wall's trace on the floor plan: its line and the span of its points along it.
    struct Trace {
        var line: PlanLine
        var start: Double
        var end: Double
        /// Seen to stand to the ceiling (within a column's slop): a wall, not furniture.
        var fullHeight = false
    }

    /// next[i]: the wall met at the end of wall i (the room on the left), when both agree.
    var next: [Int?]
    var previous: [Int?]
    /// The walls around the room in counter-clockwise order, when they close; [] otherwise.
    var loop: [Int]
    /// doubted[i]: a corner of wall i was dropped as uncertain (`dropDoubtfulCorners`).
    var doubted: [Bool]

    var isClosed: Bool { !loop.isEmpty }

    init(_ traces: [Trace], maxGap: Double, maxOverrun: Double) {
        let n = traces.count
        // cost[i][j]: how much of walls i and j must be assumed unseen for i's end to meet j's start.
        func cost(_ i: Int, _ j: Int) -> Double? {
            let (a, b) = (traces[i], traces[j])
            guard i != j, let corner = a.line.crossing(b.line) else { return nil }
            let gapA = a.line.position(corner) - a.end
            let gapB = b.start - b.line.position(corner)
            // A wall may stop short of its corner (hidden behind furniture, out of view), but its
            // points run on past it only by the slop of its columns: a corner is where both walls
            // end. Two walls whose lines cross where one of them runs on for a metre (a bookshelf's
            // side against a wall seen above the bookshelf) do not meet there, and the length
            // that corner would give is metres off with a sigma of millimetres.
            // Past a wall seen to stand to the ceiling, though, a wall may run on as far as it may
            // stop short: into a doorway's corridor, as the coplanar wall of the next room, or
            // along an L's other arm where no floor beyond was seen to cut it.
            let runA = b.fullHeight ? maxGap : maxOverrun
            let runB = a.fullHeight ? maxGap : maxOverrun
            guard (-runA...maxGap).contains(gapA), (-runB...maxGap).contains(gapB) else { return nil }
            return abs(gapA) + abs(gapB)
        }
        var costs = [[Double?]](repeating: [Double?](repeating: nil, count: n), count: n)
        for i in 0..<n { for j in 0..<n { costs[i][j] = cost(i, j) } }
        let bestNext = (0..<n).map { i in (0..<n).filter { costs[i][$0] != nil }.min { costs[i][$0]! < costs[i][$1]! } }
        let bestPrevious = (0..<n).map { j in (0..<n).filter { costs[$0][j] != nil }.min { costs[$0][j]! < costs[$1][j]! } }
        next = (0..<n).map { i in bestNext[i].flatMap { bestPrevious[$0] == i ? $0 : nil } }
        previous = (0..<n).map { j in bestPrevious[j].flatMap { bestNext[$0] == j ? $0 : nil } }
        loop = []
        doubted = [Bool](repeating: false, count: n)
        // The loop through the longest wall that has a neighbour.
        let start = (0..<n).filter { next[$0] != nil }.max { traces[$0].end - traces[$0].start < traces[$1].end - traces[$1].start }
        if let start {
            var walk = [start]
            var at = start
            while let following = next[at], following != start, !walk.contains(following) {
                walk.append(following)
                at = following
            }
            if next[at] == start && walk.count >= 3 { loop = walk }
        }
    }

    /// In an open outline, a corner with a plane that was not seen to reach the ceiling is not
    /// certain: a cupboard's face near a camera looks like a wall up to where the view ends, and
    /// its corner with the wall beside it would give that wall a length metres short with a sigma
    /// of millimetres. Such corners are dropped (the lengths that need them are null). A closed
    /// loop of walls round the room vouches for its corners, so it keeps them.
    mutating func dropDoubtfulCorners(_ doubtful: [Bool]) {
        guard !isClosed else { return }
        for i in next.indices {
            guard let j = next[i], doubtful[i] || doubtful[j] else { continue }
            next[i] = nil
            previous[j] = nil
            doubted[i] = true
            doubted[j] = true
        }
    }

    /// The corner at the end of wall i, when it has a neighbour there.
    func endCorner(_ i: Int, _ lines: [PlanLine]) -> SIMD2<Double>? {
        next[i].flatMap { lines[i].crossing(lines[$0], minAngle: 0) }
    }

    func startCorner(_ i: Int, _ lines: [PlanLine]) -> SIMD2<Double>? {
        previous[i].flatMap { lines[$0].crossing(lines[i], minAngle: 0) }
    }

    /// The outline's corners, in loop order (the corner at the start of each loop wall).
    func corners(_ lines: [PlanLine]) -> [SIMD2<Double>] {
        loop.compactMap { startCorner($0, lines) }
    }

    /// Shoelace area and perimeter of a polygon.
    static func areaAndPerimeter(_ polygon: [SIMD2<Double>]) -> (area: Double, perimeter: Double) {
        var twice = 0.0
        var perimeter = 0.0
        for k in polygon.indices {
            let a = polygon[k]
            let b = polygon[(k + 1) % polygon.count]
            twice += a.x * b.y - b.x * a.y
            perimeter += ((b - a) * (b - a)).sum().squareRoot()
        }
        return (abs(twice) / 2, perimeter)
    }
}
