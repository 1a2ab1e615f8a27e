import CloudCore
import XCTest

@testable import CloudRender

/// A known 4 x 3 m room drawn from above: the walls land where the scale bar says, with the same
/// pixels per metre across and down, labels beside the walls on the room's outside, cameras where
/// they stood, looking where they looked.
final class FloorPlanGeometryTests: XCTestCase {
    /// Reads the walls back out of the picture (the dark runs across the room's middle row and
    /// column) and checks them against each other, against the fit and against the scale bar.
    func testWallsLieWhereTheScaleSaysWithEqualScaleOnBothAxes() throws {
        for (width, height) in [(1024, 1024), (1200, 500), (500, 1200)] {
            let renderer = try FloorPlanRenderer(width: width, height: height)
            let plan = FloorPlanFixture.rectangle()
            let image = renderer.render(plan)
            let frame = renderer.layout(plan).frame
            let size = "\(width)x\(height)"

            // A row and a column through the room away from the labels at the walls' middles:
            // each crosses two walls and nothing else dark.
            let middle = frame.pixel(SIMD2(2, 1.5))
            let probe = frame.pixel(SIMD2(1, 0.7))
            let across = image.darkRuns(row: Int(probe.y))
            let down = image.darkRuns(column: Int(probe.x))
            XCTAssertEqual(across.count, 2, "\(size): dark runs across the room \(across)")
            XCTAssertEqual(down.count, 2, "\(size): dark runs down the room \(down)")
            guard across.count == 2, down.count == 2 else { continue }
            let perMetreAcross = (across[1] - across[0]) / 4
            let perMetreDown = (down[1] - down[0]) / 3
            XCTAssertEqual(perMetreAcross, perMetreDown, accuracy: perMetreAcross * 0.005, "\(size): a square metre must stay square")
            XCTAssertEqual(perMetreAcross, frame.pixelsPerMetre, accuracy: 1, size)
            // The room fills the drawing area on its limiting side.
            let area = renderer.layout(plan).area
            XCTAssertEqual(min(Double(area.width) / 4, Double(area.height) / 3), frame.pixelsPerMetre, accuracy: 1e-9, size)
            // North up: the wall at y = 3 is the upper one in the picture.
            XCTAssertEqual(down[0], frame.pixel(SIMD2(2, 3)).y, accuracy: 1, size)
            XCTAssertEqual(across[0], frame.pixel(SIMD2(0, 0.7)).x, accuracy: 1, size)

            // The middle of the room is floor: light and blue-tinted, not ink.
            let centre = image.pixel(middle)
            XCTAssertGreaterThan(centre.min(), 140, "\(size): middle of the room \(centre)")
            XCTAssertGreaterThan(centre.z, centre.x, "\(size): the floor fill is blue-grey")

            // The scale bar's outline row is its longest dark run: its length in metres, by the
            // walls' own pixels per metre, must be a round length (1, 2 or 5 times a power of ten).
            let bar = (image.height - 60..<image.height).map { image.darkRunLengths(row: $0).max() ?? 0 }.max() ?? 0
            let metres = Double(bar - 2) / perMetreAcross
            let round = [0.1, 0.2, 0.5, 1, 2, 5, 10].min { abs($0 - metres) < abs($1 - metres) }!
            XCTAssertEqual(metres, round, accuracy: round * 0.02, "\(size): the scale bar is \(bar) px = \(metres) m")
        }
    }

    /// Every wall's label is dark text beside the middle of its wall on the room's outside, off
    /// the line; the same plan without labels has nothing there. A closed outline finds its
    /// outside from the walls, an open one from the side the floor points are on.
    func testLabelsSitOutsideBesideEachWall() throws {
        for closed in [true, false] {
            try checkLabelsOutside(closed: closed)
        }
    }

    private func checkLabelsOutside(closed: Bool) throws {
        let renderer = try FloorPlanRenderer()
        var plan = FloorPlanFixture.rectangle()
        var bareplan = FloorPlanFixture.rectangle(labelled: false)
        plan.outlineClosed = closed
        bareplan.outlineClosed = closed
        let labelled = renderer.render(plan)
        let bare = renderer.render(bareplan)
        let frame = renderer.layout(plan).frame
        let thickness = Int(FloorPlanRenderer.lineThickness(FloorPlanRenderer.textScale(width: 1024, height: 1024)))
        // Midpoint of each wall and the outward direction in pixels (the page's y points down).
        let walls: [(SIMD2<Double>, SIMD2<Int>)] = [
            (SIMD2(2, 0), SIMD2(0, 1)), (SIMD2(4, 1.5), SIMD2(1, 0)), (SIMD2(2, 3), SIMD2(0, -1)), (SIMD2(0, 1.5), SIMD2(-1, 0))
        ]
        for (point, out) in walls {
            let m = frame.pixel(point)
            let (mx, my) = (Int(m.x), Int(m.y))
            if closed { XCTAssertTrue(labelled.isDark(mx, my), "\(point): the wall line is dark at its middle") }
            // A box reaching from just off the line to 100 px out, 120 px along the wall.
            func region(_ side: Int) -> (Int, Int, Int, Int) {
                let near = thickness + 1
                if out.x == 0 {
                    let (a, b) = (my + side * out.y * near, my + side * out.y * 100)
                    return (mx - 60, min(a, b), mx + 60, max(a, b) + 1)
                }
                let (a, b) = (mx + side * out.x * near, mx + side * out.x * 100)
                return (min(a, b), my - 60, max(a, b) + 1, my + 60)
            }
            let outside = region(1)
            let inside = region(-1)
            let text = labelled.darkCount(x0: outside.0, y0: outside.1, x1: outside.2, y1: outside.3)
            XCTAssertGreaterThan(text, 40, "closed \(closed), \(point): the label's text beside the wall, outside")
            XCTAssertEqual(
                bare.darkCount(x0: outside.0, y0: outside.1, x1: outside.2, y1: outside.3), 0,
                "closed \(closed), \(point): without labels nothing is drawn there")
            XCTAssertEqual(
                labelled.darkCount(x0: inside.0, y0: inside.1, x1: inside.2, y1: inside.3), 0,
                "closed \(closed), \(point): the inside of the room stays clear")
        }
    }

    /// A camera standing where a label would go (just outside the bottom wall's middle, as in a
    /// doorway) keeps its dot and tick clear: the label moves along the wall or inside.
    func testLabelsMakeRoomForCameras() throws {
        let renderer = try FloorPlanRenderer()
        var plan = FloorPlanFixture.rectangle()
        plan.cameras = [FloorPlan.Camera(position: SIMD2(2, -0.1), heading: SIMD2(0, 1))]
        let layout = renderer.layout(plan)
        let floor = FloorPlanOccupancy(plan.floorPoints, frame: layout.frame, width: 1024, height: 1024, cell: layout.cell)
        let labels = renderer.labels(plan, layout: layout, floor: floor)
        XCTAssertEqual(labels.count, 4)
        let dot = layout.frame.pixel(SIMD2(2, -0.1))
        let reach = FloorPlanRenderer.cameraReach(layout.textScale)
        for label in labels {
            XCTAssertFalse(label.box.touches(segment: dot, dot, radius: reach), "\(label.text) at \(label.box) covers the camera at \(dot)")
        }
        // The bottom wall's label is still beside its wall: within a quarter of its length of the middle.
        let bottom = try XCTUnwrap(labels.first)
        XCTAssertEqual(
            Double(bottom.box.x0 + bottom.box.x1) / 2, layout.frame.pixel(SIMD2(2, 0)).x, accuracy: layout.frame.pixelsPerMetre * 4 * 0.26)
    }

    /// A camera is a dot at its position, with a dark tick towards its heading and none behind it.
    func testCamerasAreDotsWithAHeadingTick() throws {
        let renderer = try FloorPlanRenderer()
        var plan = FloorPlanFixture.rectangle()
        plan.cameras = [
            FloorPlan.Camera(position: SIMD2(1, 1), heading: SIMD2(2, 0)),
            FloorPlan.Camera(position: SIMD2(3, 2), heading: SIMD2(0, 1)),
            FloorPlan.Camera(position: SIMD2(2.5, 0.8), heading: nil)
        ]
        let image = renderer.render(plan)
        let frame = renderer.layout(plan).frame
        for camera in plan.cameras {
            let c = image.pixel(frame.pixel(camera.position))
            XCTAssertGreaterThan(c.x, 180, "\(camera.position): the dot's color at its position \(c)")
            XCTAssertLessThan(c.y, 120, "\(camera.position): the dot's color at its position \(c)")
        }
        let east = frame.pixel(SIMD2(1, 1))
        XCTAssertTrue(image.isDark(Int(east.x) + 15, Int(east.y)), "heading +x: the tick points right")
        XCTAssertFalse(image.isDark(Int(east.x) - 15, Int(east.y)), "heading +x: nothing behind")
        let north = frame.pixel(SIMD2(3, 2))
        XCTAssertTrue(image.isDark(Int(north.x), Int(north.y) - 15), "heading +y: the tick points up the page")
        XCTAssertFalse(image.isDark(Int(north.x), Int(north.y) + 15), "heading +y: nothing below")
        let still = frame.pixel(SIMD2(2.5, 0.8))
        for (dx, dy) in [(15, 0), (-15, 0), (0, 15), (0, -15)] {
            XCTAssertFalse(image.isDark(Int(still.x) + dx, Int(still.y) + dy), "no heading: no tick")
        }
    }

    /// Other points are drawn over the floor fainter than the walls; an open outline is dashed,
    /// a closed one solid.
    func testOtherPointsAreFaintAndOpenOutlinesDashed() throws {
        let renderer = try FloorPlanRenderer()
        var plan = FloorPlanFixture.rectangle(labelled: false)
        plan.otherPoints = (0..<1600).map { SIMD2(1.9 + Float($0 % 40) * 0.005, 1.4 + Float($0 / 40) * 0.005) }
        let closed = renderer.render(plan)
        let frame = renderer.layout(plan).frame
        let clutter = closed.pixel(frame.pixel(SIMD2(2.0, 1.5)))
        let floor = closed.pixel(frame.pixel(SIMD2(1.0, 1.5)))
        XCTAssertLessThan(
            Int(clutter.x) + Int(clutter.y) + Int(clutter.z), Int(floor.x) + Int(floor.y) + Int(floor.z) - 30,
            "other points \(clutter) darken the floor \(floor)")
        XCTAssertGreaterThanOrEqual(clutter.max(), 100, "but stay lighter than the walls' ink")

        plan.outlineClosed = false
        let open = renderer.render(plan)
        // Along the bottom wall, away from its round ends.
        let (start, end) = (frame.pixel(SIMD2(0.3, 0)), frame.pixel(SIMD2(3.7, 0)))
        let y = Int(start.y)
        let solid = (Int(start.x)..<Int(end.x)).filter { closed.isDark($0, y) }.count
        let dashed = (Int(start.x)..<Int(end.x)).filter { open.isDark($0, y) }.count
        XCTAssertEqual(solid, Int(end.x) - Int(start.x), "a closed outline is one solid line")
        XCTAssertGreaterThan(dashed, solid / 3, "an open outline still draws its walls")
        XCTAssertLessThan(dashed, solid * 4 / 5, "an open outline's walls are dashed")
    }
}
