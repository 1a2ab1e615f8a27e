import CloudCore

/// Draws a `FloorPlan` from above: the floor's points as a light fill, the other points fainter,
/// the walls as thick dark lines (dashed when the outline is open) with their labels beside them,
/// the cameras as dots with a heading tick, the caption at the top and a metric scale bar in the
/// bottom-left corner, on white. The plan is fitted into the picture with one scale on both axes
/// and its y axis up the page.
///
/// Cost is a pass over the floor points for the fit, a pass over each point list into a grid of
/// counters, then work per cell and per pixel; nothing is allocated per point.
public struct FloorPlanRenderer: Sendable {
    public let width: Int
    public let height: Int
    /// Pixels kept free around the plan's bounding box for the walls' labels.
    public let margin: Int

    static let paper = SIMD3<UInt8>(255, 255, 255)
    static let ink = SIMD3<UInt8>(30, 34, 42)
    static let cameraColor = SIMD3<UInt8>(214, 72, 32)

    /// `margin` nil leaves room for a label such as "0.00 m" beside a wall on every side.
    /// Refuses a picture too small to hold a plan beside its caption, scale and margins.
    public init(width: Int = 1024, height: Int = 1024, margin: Int? = nil) throws {
        guard (64...ImageLimits.maxSide).contains(width), (64...ImageLimits.maxSide).contains(height) else {
            throw CloudError.badInput(
                .option("plan"), "a \(width)x\(height) floor plan is outside 64...\(ImageLimits.maxSide) pixels a side")
        }
        let textScale = Self.textScale(width: width, height: height)
        let automatic = PixelFont.width("0.00 m", scale: textScale) + 5 * textScale + Int(Self.lineThickness(textScale))
        let margin = margin ?? automatic
        let spare = Swift.min(width, height - Self.bands(textScale)) - 2 * margin
        guard margin >= 0, spare >= 32 else {
            throw CloudError.badInput(
                .option("plan"), "a \(width)x\(height) floor plan with a \(margin)-pixel margin leaves no room for the plan")
        }
        self.width = width
        self.height = height
        self.margin = margin
    }

    public func render(_ plan: FloorPlan) -> ColorImage {
        let layout = self.layout(plan)
        let frame = layout.frame
        var canvas = Canvas(width: width, height: height, background: Self.paper)

        let floor = FloorPlanOccupancy(plan.floorPoints, frame: frame, width: width, height: height, cell: layout.cell)
        // Light blue, a little deeper where the floor was seen densely (near the cameras).
        floor.draw(
            into: &canvas, fillingHoles: true, color: { d in Self.mix(SIMD3(214, 227, 243), SIMD3(176, 200, 230), d) },
            alpha: { _ in 1 })
        let other = FloorPlanOccupancy(plan.otherPoints, frame: frame, width: width, height: height, cell: layout.cell)
        other.draw(into: &canvas, fillingHoles: true, color: { _ in SIMD3(105, 108, 115) }, alpha: { 0.25 + 0.45 * $0 })

        let walls = layout.walls
        let dash = plan.outlineClosed ? nil : (on: 6 * layout.lineThickness, off: 4 * layout.lineThickness)
        for wall in walls {
            canvas.line(from: wall.a, to: wall.b, thickness: layout.lineThickness, color: Self.ink, dash: dash)
        }
        drawCameras(plan.cameras, frame: frame, textScale: layout.textScale, into: &canvas)

        let labels = self.labels(plan, layout: layout, floor: floor)
        for label in labels {
            canvas.shade(label.box, color: Self.paper, alpha: 0.85)
            PixelFont.draw(
                label.text, x: label.box.x0 + layout.textScale, y: label.box.y0 + layout.textScale,
                scale: layout.textScale, color: Self.ink, into: &canvas)
        }
        if let caption = layout.caption {
            PixelFont.draw(
                caption.text, x: (width - PixelFont.width(caption.text, scale: caption.scale)) / 2, y: caption.top,
                scale: caption.scale, color: Self.ink, into: &canvas)
        }
        let scale = FloorPlanScale(textScale: layout.textScale, pixelsPerMetre: frame.pixelsPerMetre)
        scale.draw(
            into: &canvas, left: 8 * layout.textScale, top: height - scale.height,
            longest: layout.area.width * 3 / 10, ink: Self.ink, paper: Self.paper)
        return ColorImage(width: width, height: height, rgb: canvas.rgb)
    }

    /// Sizes and places worked out before drawing: what tests check the pixels against.
    struct Layout {
        var textScale: Int
        var lineThickness: Double
        /// Pixels on a side of an occupancy cell.
        var cell: Int
        /// Where the plan's bounding box is fitted.
        var area: FloorPlanRect
        /// Where labels may go: everything between the caption and the scale bar.
        var labelBounds: FloorPlanRect
        var frame: FloorPlanFrame
        /// Walls with finite ends, in pixels, with their labels.
        var walls: [(a: SIMD2<Double>, b: SIMD2<Double>, label: String?)]
        var caption: (text: String, scale: Int, top: Int)?
    }

    func layout(_ plan: FloorPlan) -> Layout {
        let textScale = Self.textScale(width: width, height: height)
        // The caption shrinks to fit the width, down to the smallest font; beyond that it is clipped.
        let caption = plan.caption.flatMap { $0.isEmpty ? nil : $0 }.map { text -> (text: String, scale: Int, top: Int) in
            let scale = (1...textScale).reversed().first { PixelFont.width(text, scale: $0) <= width - 4 * textScale } ?? 1
            return (text, scale, 3 * textScale)
        }
        let captionBand = caption.map { PixelFont.glyphHeight * $0.scale + 6 * textScale } ?? 0
        let scaleBand = FloorPlanScale(textScale: textScale, pixelsPerMetre: 1).height
        let labelBounds = FloorPlanRect(x0: 0, y0: captionBand, x1: width, y1: height - scaleBand)
        let area = FloorPlanRect(
            x0: labelBounds.x0 + margin, y0: labelBounds.y0 + margin,
            x1: labelBounds.x1 - margin, y1: labelBounds.y1 - margin)

        let walls = plan.walls.filter { $0.a.x.isFinite && $0.a.y.isFinite && $0.b.x.isFinite && $0.b.y.isFinite }
        var bounds = FloorPlanBounds()
        for wall in walls {
            bounds.add(wall.a)
            bounds.add(wall.b)
        }
        for camera in plan.cameras { bounds.add(camera.position) }
        var floor = FloorPlanBounds()
        floor.add(plan.floorPoints)
        bounds.add(floor)
        if bounds.min == nil { bounds.add(plan.otherPoints) }
        let frame = FloorPlanFrame(fitting: bounds, into: area)
        let cell = FloorPlanOccupancy.cell(spacing: floor.spacing, pixelsPerMetre: frame.pixelsPerMetre, finest: textScale >= 2 ? 2 : 1)
        return Layout(
            textScale: textScale, lineThickness: Self.lineThickness(textScale), cell: cell,
            area: area, labelBounds: labelBounds, frame: frame,
            walls: walls.map { (frame.pixel($0.a), frame.pixel($0.b), $0.label) },
            caption: caption)
    }

    func labels(_ plan: FloorPlan, layout: Layout, floor: FloorPlanOccupancy) -> [FloorPlanLabels.Placed] {
        let lines = layout.walls.map { (a: $0.a, b: $0.b) }
        let interior = FloorPlanInterior(walls: lines, closed: plan.outlineClosed, floor: floor)
        let probe = layout.lineThickness + 4 * Double(layout.textScale)
        let labelled = layout.walls.compactMap { wall in
            wall.label.map {
                FloorPlanLabels.Wall(a: wall.a, b: wall.b, text: $0, inside: interior.side(of: (wall.a, wall.b), probe: probe))
            }
        }
        let placer = FloorPlanLabels(textScale: layout.textScale, lineRadius: layout.lineThickness / 2, bounds: layout.labelBounds)
        let markers = plan.cameras.map { (centre: layout.frame.pixel($0.position), radius: Self.cameraReach(layout.textScale)) }
            .filter { $0.centre.x.isFinite && $0.centre.y.isFinite }
        return placer.place(labelled, avoiding: lines, markers: markers)
    }

    /// A dot with a dark rim at each camera, and a tick from its rim the way it looked.
    private func drawCameras(_ cameras: [FloorPlan.Camera], frame: FloorPlanFrame, textScale: Int, into canvas: inout Canvas) {
        let radius = Self.cameraRadius(textScale)
        for camera in cameras {
            let centre = frame.pixel(camera.position)
            if let heading = camera.heading {
                // The page's y points down: the plan's heading flips with it.
                let direction = SIMD2(heading.x, -heading.y)
                let length = (direction * direction).sum().squareRoot()
                if length > 0, length.isFinite {
                    canvas.line(
                        from: centre, to: centre + direction / length * Self.cameraReach(textScale),
                        thickness: Double(Swift.max(2, textScale)), color: Self.ink)
                }
            }
            canvas.disc(at: centre, radius: radius + 1, color: Self.ink)
            canvas.disc(at: centre, radius: radius - 0.5, color: Self.cameraColor)
        }
    }

    /// A camera dot's radius in pixels.
    static func cameraRadius(_ textScale: Int) -> Double { Double(2 + 2 * textScale) }
    /// How far from a camera's position its heading tick reaches, in pixels.
    static func cameraReach(_ textScale: Int) -> Double { cameraRadius(textScale) * 2.4 }

    /// Font pixel size, as the depth key picks it from the picture's width.
    static func textScale(width: Int, height: Int) -> Int {
        let side = Swift.min(width, height)
        return side >= 700 ? 3 : side >= 400 ? 2 : 1
    }

    static func lineThickness(_ textScale: Int) -> Double { Double(Swift.max(3, 2 * textScale)) }

    /// Rows the caption (at its largest) and the scale bar take.
    private static func bands(_ textScale: Int) -> Int {
        PixelFont.glyphHeight * textScale + 6 * textScale + FloorPlanScale(textScale: textScale, pixelsPerMetre: 1).height
    }

    private static func mix(_ a: SIMD3<UInt8>, _ b: SIMD3<UInt8>, _ t: Float) -> SIMD3<UInt8> {
        let (fa, fb) = (SIMD3<Float>(a), SIMD3<Float>(b))
        let m = fa + (fb - fa) * Swift.min(1, Swift.max(0, t))
        return SIMD3(UInt8(m.x.rounded()), UInt8(m.y.rounded()), UInt8(m.z.rounded()))
    }
}
