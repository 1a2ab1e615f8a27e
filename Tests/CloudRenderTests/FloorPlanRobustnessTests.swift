import CloudCore
import XCTest

@testable import CloudRender

/// Plans that measure nothing, measure one point, or carry NaN and extreme coordinates still make
/// a picture (never a trap), drawing whatever is finite where it belongs.
final class FloorPlanRobustnessTests: XCTestCase {
    private let paper = SIMD3<UInt8>(255, 255, 255)

    /// Pixels in the plan's area that are not plain paper.
    private func marked(_ image: ColorImage, in area: FloorPlanRect) -> Int {
        var count = 0
        for y in area.y0..<area.y1 {
            for x in area.x0..<area.x1 where image.pixel(x, y) != paper { count += 1 }
        }
        return count
    }

    func testEmptyPlanIsABlankSheetWithItsScale() throws {
        let renderer = try FloorPlanRenderer()
        let image = renderer.render(FloorPlan())
        XCTAssertEqual(image.width, 1024)
        XCTAssertEqual(image.height, 1024)
        XCTAssertEqual(marked(image, in: renderer.layout(FloorPlan()).area), 0, "nothing to draw in the plan's area")
        XCTAssertGreaterThan(image.darkCount(x0: 0, y0: 1024 - 60, x1: 1024, y1: 1024), 0, "the scale bar is still there")
    }

    /// A thousand copies of one point: the box has no size, so the plan is shown at the smallest
    /// span around it, and the point's cell is floor-colored in the middle of the area.
    func testAllPointsEqualShowOnePatchInTheMiddle() throws {
        let renderer = try FloorPlanRenderer(width: 400, height: 300)
        let plan = FloorPlan(floorPoints: Array(repeating: SIMD2(2, 2), count: 1000))
        let image = renderer.render(plan)
        let layout = renderer.layout(plan)
        let spot = layout.frame.pixel(SIMD2(2, 2))
        XCTAssertEqual(spot.x, Double(layout.area.x0 + layout.area.x1) / 2, accuracy: 0.5)
        XCTAssertNotEqual(image.pixel(spot), paper, "the point's cell is filled")
        XCTAssertLessThanOrEqual(marked(image, in: layout.area), layout.cell * layout.cell, "and only that cell")
    }

    /// NaN and infinite coordinates everywhere: they are left out, the finite rest is drawn as if
    /// they were not there.
    func testNonFiniteCoordinatesAreLeftOut() throws {
        let renderer = try FloorPlanRenderer()
        let clean = FloorPlanFixture.rectangle()
        var dirty = clean
        dirty.floorPoints += [SIMD2(.nan, 1), SIMD2(1, .infinity), SIMD2(-.infinity, .nan)]
        dirty.otherPoints = [SIMD2(.nan, .nan)]
        dirty.walls.append(FloorPlan.Wall(a: SIMD2(.nan, 0), b: SIMD2(1, 1), label: "9.99 m"))
        dirty.walls.append(FloorPlan.Wall(a: SIMD2(0, 0), b: SIMD2(.infinity, 1), label: nil))
        dirty.cameras = [
            FloorPlan.Camera(position: SIMD2(.nan, 2), heading: SIMD2(1, 0)),
            FloorPlan.Camera(position: SIMD2(1, 1), heading: SIMD2(.nan, .infinity))
        ]
        XCTAssertEqual(renderer.layout(dirty).frame, renderer.layout(clean).frame, "non-finite values do not move the fit")
        let image = renderer.render(dirty)
        let frame = renderer.layout(dirty).frame
        XCTAssertTrue(image.isDark(Int(frame.pixel(SIMD2(2, 0)).x), Int(frame.pixel(SIMD2(2, 0)).y)), "the finite walls are drawn")
        let camera = image.pixel(frame.pixel(SIMD2(1, 1)))
        XCTAssertGreaterThan(camera.x, 180, "the camera with a NaN heading is still a dot, without a tick")
        // The camera's dot differs, and nothing else: no line, label or tick from the bad walls.
        var withCamera = clean
        withCamera.cameras = [FloorPlan.Camera(position: SIMD2(1, 1))]
        XCTAssertEqual(image, renderer.render(withCamera))
    }

    /// One wall alone, one of no length, an unknown character in a label: drawn, labelled, no trap.
    func testSingleAndZeroLengthWallsAreLabelled() throws {
        let renderer = try FloorPlanRenderer(width: 640, height: 480)
        for plan in [
            FloorPlan(walls: [FloorPlan.Wall(a: SIMD2(0, 0), b: SIMD2(3, 0), label: "3.00 m")]),
            FloorPlan(walls: [FloorPlan.Wall(a: SIMD2(1, 1), b: SIMD2(1, 1), label: "0.00 m")], caption: "Größe ☃ 0 m²")
        ] {
            let image = renderer.render(plan)
            let layout = renderer.layout(plan)
            let wall = layout.walls[0]
            let middle = (wall.a + wall.b) / 2
            XCTAssertTrue(image.isDark(Int(middle.x), Int(middle.y)), "\(plan.walls[0]): the wall is drawn")
            let placed = renderer.labels(
                plan, layout: layout,
                floor: FloorPlanOccupancy(
                    [], frame: layout.frame, width: 640,
                    height: 480, cell: layout.cell))
            XCTAssertEqual(placed.count, 1)
            if let box = placed.first?.box {
                XCTAssertTrue(layout.labelBounds.contains(box), "\(box) inside \(layout.labelBounds)")
                XCTAssertGreaterThan(image.darkCount(x0: box.x0, y0: box.y0, x1: box.x1, y1: box.y1), 20, "the label's text")
            }
        }
    }

    /// Coordinates at the edge of Float and Double: the fit neither overflows nor traps, and what
    /// spans the whole range is drawn across the whole area.
    func testHugeCoordinatesDoNotOverflow() throws {
        // 400 x 300: the height limits the scale, so the lowest point lands on the area's bottom edge.
        let renderer = try FloorPlanRenderer(width: 400, height: 300)
        let big = Float.greatestFiniteMagnitude
        let floorOnly = FloorPlan(floorPoints: [SIMD2(-big, -big), SIMD2(big, big), SIMD2(0, 0)])
        let layout = renderer.layout(floorOnly)
        XCTAssertTrue(layout.frame.pixelsPerMetre > 0 && layout.frame.pixelsPerMetre.isFinite)
        let image = renderer.render(floorOnly)
        let corner = layout.frame.pixel(SIMD2(-Double(big), -Double(big)))
        XCTAssertEqual(corner.y, Double(layout.area.y1), accuracy: 1e-6, "the lowest point is at the area's bottom edge")
        XCTAssertNotEqual(
            image.pixel(layout.area.width / 2 + layout.area.x0, layout.area.height / 2 + layout.area.y0), paper,
            "the origin is in the middle")

        let wall = FloorPlan(walls: [FloorPlan.Wall(a: SIMD2(-1e300, 0), b: SIMD2(1e300, 0), label: "2e300 m")])
        let frame = renderer.layout(wall).frame
        XCTAssertTrue(frame.pixelsPerMetre > 0 && frame.pixelsPerMetre.isFinite, "\(frame.pixelsPerMetre)")
        let y = Int(frame.pixel(SIMD2(0, 0)).y)
        let picture = renderer.render(wall)
        for x in [renderer.layout(wall).area.x0 + 2, 200, renderer.layout(wall).area.x1 - 3] {
            XCTAssertTrue(picture.isDark(x, y), "the wall spans the area: pixel \(x)")
        }

        // Double's own extremes: a camera at both ends of the range, looking along a huge heading.
        let most = Double.greatestFiniteMagnitude
        let cameras = FloorPlan(cameras: [
            FloorPlan.Camera(position: SIMD2(most, -most), heading: SIMD2(most, 1)),
            FloorPlan.Camera(position: SIMD2(-most, most), heading: SIMD2(-most, -most))
        ])
        let extreme = renderer.layout(cameras).frame
        XCTAssertTrue(extreme.pixelsPerMetre > 0 && extreme.pixelsPerMetre.isFinite, "\(extreme.pixelsPerMetre)")
        let dots = renderer.render(cameras)
        for camera in cameras.cameras {
            XCTAssertGreaterThan(dots.pixel(extreme.pixel(camera.position)).x, 180, "\(camera.position): a dot at the area's corner")
        }
    }

    func testPicturesTooSmallOrTooLargeAreRefused() {
        for (width, height, margin) in [(0, 100, nil), (100, 20000, nil), (200, 200, 90), (-5, -5, nil), (300, 300, -1)]
            as [(Int, Int, Int?)]
        {
            XCTAssertThrowsError(try FloorPlanRenderer(width: width, height: height, margin: margin)) { error in
                guard let error = error as? CloudError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.kind, .badInput)
                XCTAssertTrue(error.message.hasPrefix("--plan: "), error.message)
            }
        }
        XCTAssertNoThrow(try FloorPlanRenderer(width: 64, height: 100, margin: 0))
    }
}
