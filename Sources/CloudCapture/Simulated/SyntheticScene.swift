import CloudCore

/// The simulated camera's world: a closed room of `size` (width x depth x height metres) with a
/// table and three boxes, in the room frame of Docs/formats.md (origin at a floor corner, x along the
/// width, y along the depth, z up). Everything is an axis-aligned box, so rays are cast exactly
/// and tests can check back-projected points against the geometry. All positions here are in
/// that room frame, except where a name says world: the world frame is the room frame turned
/// by `yaw` about the vertical through `eye` (`roomToWorld`; the identity for yaw 0).
///
/// Variants (`SyntheticSettings`): `shape=L` adds a full-height block, the `notch`, in the
/// south-east corner (its two inner faces are walls); `door=1` opens a doorway in the east wall
/// onto a `corridor`; `furniture=0` leaves the room empty, `furniture=2` adds a bookshelf against
/// the north wall and a sofa against the west wall. `truth` has the room's plan.
///
/// Layout, with s = min(1, width / 3, depth / 3, height / 2.5) shrinking the furniture for small
/// rooms (positions are fractions of the room, sizes are metres times s):
/// - table: top 1.2 x 0.8 x 0.04, upper face at 0.75, centred at (0.72 W, 0.74 D); 4 legs
/// - box 0 (red) 0.5 x 0.4 x 0.45 on the floor at (0.85 W, 0.5 D)
/// - box 1 (blue) 0.4 x 0.4 x 0.6 on the floor at (0.56 W, 0.87 D)
/// - box 2 (purple) 0.3 x 0.25 x 0.2 on the table top, off its centre
/// - camera at (0.42 W, 0.36 D) looking down at the far (W, D) corner near the floor (`eye`,
///   `target`), so the floor, the east (x = W) and north (y = D) walls and all objects show.
///   The eye stands well inside the room rather than in the opposite corner so that in rooms up to
///   5 x 4 x 3 m every depth is below 4 m, where Float16 depth (the default format, as on phones)
///   still resolves 2 mm; from a corner the far walls would be 6 m away and quantised to 3.9 mm.
/// - furniture=2 adds, in spots the others leave free in every room:
///   bookshelf 0.9 x 0.35 x 1.8 against the north wall from x = 0.65 W (behind the table, in view);
///   sofa 0.85 x 1.8 x 0.85 against the west wall centred at 0.45 D.
/// - shape=L: the notch spans x in [0.6 W, W], y in [0, 0.4 D], floor to ceiling.
/// - door=1: a 0.9 x 2.0 doorway in the east wall centred at 0.75 D, onto a corridor 1.5 deep that
///   reaches 1 past the doorway on either side, as high as the room.
public struct SyntheticScene: Sendable {
    public enum Wall: String, CaseIterable, Sendable {
        /// x = 0
        case west
        /// x = width
        case east
        /// y = 0
        case south
        /// y = depth
        case north
        /// The L room's notch's west face, x = 0.6 W (facing west, as the east wall does).
        case notchWest
        /// The L room's notch's north face, y = 0.4 D (facing north, as the south wall does).
        case notchNorth
    }

    public enum Surface: Hashable, Sendable {
        case floor, ceiling
        case wall(Wall)
        case tableTop, tableLeg
        /// One of the three boxes, 0...2.
        case box(Int)
        case bookshelf, sofa
        /// Any face of the corridor beyond the doorway.
        case corridor
    }

    /// Surface colors (sRGB) before shading. Walls and objects are flat colors; the floor is a
    /// checkerboard of `floorTile`-sized tiles, light where floor(x / tile) + floor(y / tile) is even.
    public enum Palette {
        public static let floorLight = SIMD3<UInt8>(198, 170, 124)
        public static let floorDark = SIMD3<UInt8>(128, 96, 64)
        public static let ceiling = SIMD3<UInt8>(236, 233, 224)
        public static let tableTop = SIMD3<UInt8>(150, 84, 52)
        public static let tableLeg = SIMD3<UInt8>(64, 64, 70)
        public static let boxes = [SIMD3<UInt8>(204, 48, 44), SIMD3<UInt8>(44, 92, 204), SIMD3<UInt8>(148, 64, 180)]
        public static let bookshelf = SIMD3<UInt8>(92, 60, 36)
        public static let sofa = SIMD3<UInt8>(56, 120, 116)
        public static let corridor = SIMD3<UInt8>(176, 176, 184)

        public static func wall(_ wall: Wall) -> SIMD3<UInt8> {
            switch wall {
            case .west: return SIMD3(150, 178, 216)  // pale blue
            case .east: return SIMD3(156, 200, 146)  // sage green
            case .south: return SIMD3(222, 164, 160)  // dusty pink
            case .north: return SIMD3(228, 212, 142)  // pale yellow
            case .notchWest: return SIMD3(192, 164, 214)  // lavender
            case .notchNorth: return SIMD3(240, 188, 120)  // peach
            }
        }
    }

    /// A piece of furniture: an axis-aligned box (room frame) and its flat color.
    public struct Object: Sendable {
        public let surface: Surface
        public let min: SIMD3<Double>
        public let max: SIMD3<Double>
        public let albedo: SIMD3<UInt8>
    }

    /// Where a ray first meets the scene.
    public struct Hit: Sendable {
        /// The ray parameter: distance in units of the direction vector's length.
        public let distance: Double
        public let point: SIMD3<Double>
        /// Unit normal of the face that was hit, pointing towards the ray's origin side.
        public let normal: SIMD3<Double>
        public let surface: Surface
    }

    public let size: SIMD3<Double>
    public let shape: SyntheticShape
    /// Degrees the room is turned about the vertical in the world frame.
    public let yaw: Double
    /// Room frame to world frame: a turn by `yaw` about the vertical through `eye`.
    public let roomToWorld: Pose
    public let floorTile: Double
    /// The point light that shades every surface (no shadows).
    public let light: SIMD3<Double>
    /// Where the simulated camera stands and what it looks at.
    public let eye: SIMD3<Double>
    public let target: SIMD3<Double>

    /// Light that reaches faces turned away from the lamp, so nothing is black.
    public static let ambient = 0.5

    struct Solid {
        var box: AxisBox
        var surface: Surface
        var albedo: Vec3
        /// The L room's notch: a solid whose faces are walls, named by `notchSurface`.
        var isNotch = false
    }

    let room: AxisBox
    /// Furniture first (in `Object` order), then the notch when the room is L-shaped. At most 64
    /// (the culling's bit masks).
    let solids: [Solid]
    let doorway: Doorway?
    /// Where the orbit path circles (room frame, at eye height) and its radius: inside the free
    /// part with room to spare.
    let orbitCentre: SIMD2<Double>
    let orbitRadius: Double

    public init(size: SIMD3<Double>, shape: SyntheticShape = .box, door: Bool = false, furniture: Int = 1, yaw: Double = 0) {
        let (w, d, h) = (size.x, size.y, size.z)
        let s = Swift.min(1, w / 3, d / 3, h / 2.5)
        self.size = size
        self.shape = shape
        self.yaw = yaw
        floorTile = 0.5 * s
        light = SIMD3(0.5 * w, 0.5 * d, 0.6 * h)
        let margin = Swift.min(0.3, 0.1 * Swift.min(w, d))
        let eyeHeight = Swift.min(1.5, 0.6 * h)
        eye = SIMD3(0.42 * w, 0.36 * d, eyeHeight)
        // 0.35 H, but never above the eye: in a tall hall the camera still looks down at the floor.
        target = SIMD3(w - margin, d - margin, Swift.min(0.1 * h, 0.6 * eyeHeight))
        room = AxisBox(lo: Vec3(0, 0, 0), hi: Vec3(size))
        roomToWorld = .turn(degrees: yaw, about: eye)

        // A box of the given size (metres before scaling) standing at height `base` on centre (cx, cy).
        func standing(_ cx: Double, _ cy: Double, base: Double, _ sx: Double, _ sy: Double, _ sz: Double) -> AxisBox {
            AxisBox(lo: Vec3(cx - sx * s / 2, cy - sy * s / 2, base), hi: Vec3(cx + sx * s / 2, cy + sy * s / 2, base + sz * s))
        }
        func solid(_ box: AxisBox, _ surface: Surface, _ color: SIMD3<UInt8>) -> Solid {
            Solid(box: box, surface: surface, albedo: Vec3(Double(color.x), Double(color.y), Double(color.z)))
        }
        var solids: [Solid] = []
        let (tx, ty) = (0.72 * w, 0.74 * d)
        let (topLength, topWidth, topThickness, tableHeight) = (1.2, 0.8, 0.04, 0.75)
        if furniture >= 1 {
            // The table top comes first: `tableTopHeight` reads it.
            solids.append(
                solid(
                    standing(tx, ty, base: (tableHeight - topThickness) * s, topLength, topWidth, topThickness),
                    .tableTop, Palette.tableTop))
            let legSide = 0.06
            let legHeight = tableHeight - topThickness
            for (sx, sy) in [(-1.0, -1.0), (1, -1), (-1, 1), (1, 1)] {
                // Legs sit 5 cm inside the top's corners.
                let lx = tx + sx * (topLength / 2 - 0.05 - legSide / 2) * s
                let ly = ty + sy * (topWidth / 2 - 0.05 - legSide / 2) * s
                solids.append(solid(standing(lx, ly, base: 0, legSide, legSide, legHeight), .tableLeg, Palette.tableLeg))
            }
            solids.append(solid(standing(0.85 * w, 0.5 * d, base: 0, 0.5, 0.4, 0.45), .box(0), Palette.boxes[0]))
            solids.append(solid(standing(0.56 * w, 0.87 * d, base: 0, 0.4, 0.4, 0.6), .box(1), Palette.boxes[1]))
            solids.append(
                solid(
                    standing(tx + 0.2 * s, ty - 0.1 * s, base: tableHeight * s, 0.3, 0.25, 0.2),
                    .box(2), Palette.boxes[2]))
        }
        if furniture >= 2 {
            // Since s <= W / 3 and D / 3, the shelf spans at most [0.65, 0.95] W and [0.88, 1] D:
            // clear of box 1 (x <= 0.63 W) and the table (y <= 0.87 D), and of the L's notch.
            let shelf = (length: 0.9, depth: 0.35)
            solids.append(
                solid(
                    standing(0.65 * w + shelf.length * s / 2, d - shelf.depth * s / 2, base: 0, shelf.length, shelf.depth, 1.8),
                    .bookshelf, Palette.bookshelf))
            // At most [0, 0.28] W and [0.15, 0.75] D, away from everything else; the camera
            // passes above it (0.85 s <= 0.34 H, the eye is at 0.6 H or 1.5 m).
            let sofaDepth = 0.85
            solids.append(solid(standing(sofaDepth * s / 2, 0.45 * d, base: 0, sofaDepth, 1.8, 0.85), .sofa, Palette.sofa))
        }
        switch shape {
        case .box:
            orbitCentre = SIMD2(size.x / 2, size.y / 2)
            orbitRadius = 0.3 * Swift.min(size.x, size.y)
        case .L:
            let f = SyntheticShape.notchFraction
            var notch = solid(AxisBox(lo: Vec3((1 - f) * w, 0, 0), hi: Vec3(w, f * d, h)), .wall(.notchWest), Palette.wall(.notchWest))
            notch.isNotch = true
            solids.append(notch)
            // Centred in the free part's wide corner, the circle keeps 0.15 W and 0.15 D from the
            // west and north walls, 0.05 of the diagonal from the notch's corner (0.2 of the
            // diagonal from the centre), and stays below the bookshelf's front (y <= 0.85 D).
            orbitCentre = SIMD2((1 - f) * w - 0.2 * w, f * d + 0.2 * d)
            orbitRadius = Swift.min(0.25 * w, 0.25 * d, 0.15 * (w * w + d * d).squareRoot())
        }
        self.solids = solids
        doorway = door ? Doorway(room: size, scale: s) : nil
    }

    /// The furniture (the L room's notch is part of the room, not furniture).
    public var objects: [Object] {
        solids.filter { !$0.isNotch }.map {
            Object(
                surface: $0.surface, min: $0.box.lo.simd, max: $0.box.hi.simd,
                albedo: SIMD3(UInt8($0.albedo.x), UInt8($0.albedo.y), UInt8($0.albedo.z)))
        }
    }

    /// The L room's notch (room frame), nil in a box room.
    public var notch: (min: SIMD3<Double>, max: SIMD3<Double>)? {
        solids.last(where: \.isNotch).map { ($0.box.lo.simd, $0.box.hi.simd) }
    }

    /// The height of the table's upper face; nil in an empty room.
    public var tableTopHeight: Double? {
        solids.first { $0.surface == .tableTop }?.box.hi.z
    }

    // MARK: Ray casting

    /// The first surface a ray from `origin` (inside the room, outside the furniture; room frame)
    /// meets. Returns nil for an origin outside the room or in the notch, or a zero direction.
    public func intersect(origin: SIMD3<Double>, direction: SIMD3<Double>) -> Hit? {
        let o = Vec3(origin)
        let d = Vec3(direction)
        guard d.dot(d) > 0, o.x > 0, o.y > 0, o.z > 0, o.x < size.x, o.y < size.y, o.z < size.z else { return nil }
        if let notch { guard !all(origin .> notch.min .& origin .< notch.max) else { return nil } }
        let hit = cast(origin: o, direction: d, inverse: d.reciprocal)
        let p = o + d * hit.t
        return Hit(distance: hit.t, point: p.simd, normal: hit.normal.simd, surface: surface(of: hit))
    }

    /// What the hot loops get back: the index of the solid that was hit (or `shell` for the room's
    /// shell, whose face is then given by `axis` and the direction's sign, or `corridor`).
    struct RawHit {
        static let shell = -1
        static let corridor = -2

        var t: Double
        var solid: Int
        var axis: Int
        var normal: Vec3
    }

    /// Closed room (the doorway leads into a closed corridor), so every ray from inside hits
    /// something. `candidates` has bit i set for each solid worth testing (the caller's culling);
    /// the others are skipped.
    @inline(__always)
    func cast(origin o: Vec3, direction d: Vec3, inverse inv: Vec3, candidates: UInt64 = .max) -> RawHit {
        var shell = room.exit(origin: o, direction: d, inverse: inv)
        var struck = RawHit.shell
        if let doorway, shell.axis == 0, d.x > 0, doorway.opens(at: o + d * shell.t) {
            // Through the doorway: the ray is inside the corridor from here on, and the corridor's
            // faces ahead of it are the ones it leaves by (the origin lies within its y and z
            // spans along every path through the doorway).
            shell = doorway.corridor.exit(origin: o, direction: d, inverse: inv)
            struck = RawHit.corridor
        }
        var best = RawHit(t: shell.t, solid: struck, axis: shell.axis, normal: Self.facing(axis: shell.axis, direction: d))
        solids.withUnsafeBufferPointer { solids in
            var rest = candidates & (solids.count < 64 ? (1 << UInt64(solids.count)) - 1 : .max)
            while rest != 0 {
                let i = rest.trailingZeroBitCount
                rest &= rest - 1
                if let e = solids[i].box.entry(origin: o, inverse: inv), e.t < best.t {
                    best = RawHit(t: e.t, solid: i, axis: e.axis, normal: Self.facing(axis: e.axis, direction: d))
                }
            }
        }
        return best
    }

    /// Names what a raw hit struck.
    @inline(__always)
    func surface(of hit: RawHit) -> Surface {
        if hit.solid >= 0 {
            let solid = solids[hit.solid]
            guard solid.isNotch, hit.axis != 2 else { return solid.surface }
            return .wall(hit.axis == 0 ? .notchWest : .notchNorth)
        }
        if hit.solid == RawHit.corridor { return .corridor }
        switch hit.axis {
        case 0: return .wall(hit.normal.x < 0 ? .east : .west)
        case 1: return .wall(hit.normal.y < 0 ? .north : .south)
        default: return hit.normal.z < 0 ? .ceiling : .floor
        }
    }

    /// The unit normal along `axis` that faces against `d`.
    @inline(__always)
    static func facing(axis: Int, direction d: Vec3) -> Vec3 {
        switch axis {
        case 0: return Vec3(d.x > 0 ? -1 : 1, 0, 0)
        case 1: return Vec3(0, d.y > 0 ? -1 : 1, 0)
        default: return Vec3(0, 0, d.z > 0 ? -1 : 1)
        }
    }

    // MARK: Colors

    /// The unshaded color of `surface` at `point` (only the floor varies with the point).
    public func albedo(of surface: Surface, at point: SIMD3<Double>) -> SIMD3<UInt8> {
        let a = albedo(surface: surface, solid: solids.firstIndex { $0.surface == surface } ?? -1, at: Vec3(point))
        return SIMD3(UInt8(a.x), UInt8(a.y), UInt8(a.z))
    }

    /// The shaded color seen along a ray from inside the room: the color image's inner loop.
    @inline(__always)
    func shadedColor(origin o: Vec3, direction d: Vec3, candidates: UInt64) -> (r: UInt8, g: UInt8, b: UInt8) {
        let hit = cast(origin: o, direction: d, inverse: d.reciprocal, candidates: candidates)
        let p = o + d * hit.t
        return shade(albedo: albedo(surface: surface(of: hit), solid: hit.solid, at: p), point: p, normal: hit.normal)
    }

    /// The shaded sRGB color the camera sees at a hit.
    public func color(of hit: Hit) -> SIMD3<UInt8> {
        let solid = solids.firstIndex { $0.surface == hit.surface } ?? -1
        let c = shade(
            albedo: albedo(surface: hit.surface, solid: solid, at: Vec3(hit.point)),
            point: Vec3(hit.point), normal: Vec3(hit.normal))
        return SIMD3(c.r, c.g, c.b)
    }

    @inline(__always)
    func albedo(surface: Surface, solid: Int, at p: Vec3) -> Vec3 {
        if solid >= 0 && !solids[solid].isNotch { return solids[solid].albedo }
        let c: SIMD3<UInt8>
        switch surface {
        case .floor:
            let parity = (Int((p.x / floorTile).rounded(.down)) + Int((p.y / floorTile).rounded(.down))) & 1
            c = parity == 0 ? Palette.floorLight : Palette.floorDark
        case .ceiling: c = Palette.ceiling
        case .wall(let wall): c = Palette.wall(wall)
        case .corridor: c = Palette.corridor
        case .tableTop, .tableLeg, .box, .bookshelf, .sofa: c = .zero  // furniture always has a solid index
        }
        return Vec3(Double(c.x), Double(c.y), Double(c.z))
    }

    /// Lambert shading in sRGB units from the point light, over the ambient floor. The factor never
    /// exceeds 1, so a shaded color is its albedo scaled uniformly (hue is kept).
    @inline(__always)
    func shade(albedo: Vec3, point p: Vec3, normal n: Vec3) -> (r: UInt8, g: UInt8, b: UInt8) {
        let toLight = Vec3(light) - p
        let lambert = Swift.max(0, n.dot(toLight) / toLight.length)
        let k = Self.ambient + (1 - Self.ambient) * lambert
        // Adding 0.5 and truncating rounds these non-negative values without a libm call per channel.
        return (UInt8(albedo.x * k + 0.5), UInt8(albedo.y * k + 0.5), UInt8(albedo.z * k + 0.5))
    }

    // MARK: Ground truth

    /// The surface the world-frame `point` lies on, within `tolerance` metres, or nil when it is
    /// on none (inside the air, the doorway or the notch, or outside the room and corridor).
    /// Furniture takes precedence where it touches the room's shell, then the notch.
    public func surface(atWorldPoint point: SIMD3<Double>, tolerance: Double = 0.001) -> Surface? {
        let p = Vec3(roomToWorld.inverse(point))
        if let solid = solids.first(where: { $0.box.hasOnSurface(p, tolerance: tolerance) }) {
            return solid.isNotch ? notchSurface(p, box: solid.box, tolerance: tolerance) : solid.surface
        }
        if let doorway, p.x > size.x + tolerance {
            return doorway.corridor.hasOnSurface(p, tolerance: tolerance) ? .corridor : nil
        }
        guard room.hasOnSurface(p, tolerance: tolerance) else { return nil }
        if let doorway, abs(p.x - size.x) <= tolerance, p.z > tolerance, doorway.opens(at: p, margin: tolerance) { return nil }
        if abs(p.z) <= tolerance { return .floor }
        if abs(p.z - size.z) <= tolerance { return .ceiling }
        if abs(p.x) <= tolerance { return .wall(.west) }
        if abs(p.x - size.x) <= tolerance { return .wall(.east) }
        return abs(p.y) <= tolerance ? .wall(.south) : .wall(.north)
    }

    /// Which of the notch's two inner faces `p` (on its surface) lies on; nil on the faces that
    /// lie in the shell's walls, floor and ceiling, which no ray reaches.
    private func notchSurface(_ p: Vec3, box: AxisBox, tolerance: Double) -> Surface? {
        let inside = p.z > tolerance && p.z < size.z - tolerance
        if inside && abs(p.x - box.lo.x) <= tolerance && p.y < box.hi.y + tolerance { return .wall(.notchWest) }
        if inside && abs(p.y - box.hi.y) <= tolerance && p.x > box.lo.x - tolerance { return .wall(.notchNorth) }
        return nil
    }
}

/// The open doorway of `door=1` (room frame): 0.9 s wide and 2.0 s high in the east wall, centred
/// at 0.75 D, where the east wall is in view of the camera and clear of the furniture and the
/// notch; beyond it a corridor 1.5 s deep, 1 s wider than the doorway on each side, as high as
/// the room.
struct Doorway {
    /// The opening's span along y and its height.
    let y: ClosedRange<Double>
    let height: Double
    let corridor: AxisBox

    init(room: SIMD3<Double>, scale s: Double) {
        let centre = 0.75 * room.y
        y = (centre - 0.45 * s)...(centre + 0.45 * s)
        height = 2.0 * s
        corridor = AxisBox(lo: Vec3(room.x, y.lowerBound - s, 0), hi: Vec3(room.x + 1.5 * s, y.upperBound + s, room.z))
    }

    /// Whether a point of the east wall's plane lies in the opening (shrunk by `margin`).
    @inline(__always)
    func opens(at p: Vec3, margin: Double = 0) -> Bool {
        p.y > y.lowerBound + margin && p.y < y.upperBound - margin && p.z < height - margin
    }
}
