import CloudCore
import CloudImages
import Foundation
import SafeIO
import XCTest

@testable import CloudRender

/// An L-shaped room with six labelled walls, furniture and four cameras: every label finds a place
/// of its own, clear of the walls and of each other, outside the room, including the two walls of
/// the inner corner. The picture is Docs/images/floor-plan-example.png (the test writes it to the
/// temporary folder and prints where; copy it over when the drawing changes).
final class FloorPlanExampleTests: XCTestCase {
    /// Corners counter-clockwise: a 5 x 4 m box without its 2.5 x 1.5 m top-right quarter.
    static let corners: [SIMD2<Double>] = [SIMD2(0, 0), SIMD2(5, 0), SIMD2(5, 2.5), SIMD2(2.5, 2.5), SIMD2(2.5, 4), SIMD2(0, 4)]

    static func insideL(_ p: SIMD2<Double>) -> Bool {
        p.x >= 0 && p.x <= 5 && p.y >= 0 && p.y <= 4 && !(p.x > 2.5 && p.y > 2.5)
    }

    static var plan: FloorPlan {
        let walls = corners.indices.map { i -> FloorPlan.Wall in
            let (a, b) = (corners[i], corners[(i + 1) % corners.count])
            return FloorPlan.Wall(a: a, b: b, label: FloorPlanFixture.format2(((b - a) * (b - a)).sum().squareRoot()) + " m")
        }
        // A floor seen unevenly, as a capture sees it: 1.5 cm apart on average, jittered, with a
        // table (1.2 x 0.8 m) hiding the floor under it and its top among the other points.
        var random = SeededRandom(state: 12)
        var floor: [SIMD2<Float>] = []
        var other: [SIMD2<Float>] = []
        let table = (x: 0.6...1.8, y: 1.0...1.8)
        for i in 0..<334 {
            for j in 0..<267 {
                let p = SIMD2(Double(i) * 0.015 + Double(random.next()) * 0.015, Double(j) * 0.015 + Double(random.next()) * 0.015)
                guard insideL(p) else { continue }
                if table.x.contains(p.x) && table.y.contains(p.y) {
                    other.append(SIMD2(Float(p.x), Float(p.y)))
                } else {
                    floor.append(SIMD2(Float(p.x), Float(p.y)))
                }
            }
        }
        // Wall points: a thin band just inside each wall, as the walls' own points project.
        for wall in walls {
            for k in 0..<600 {
                let t = Double(k) / 600
                let p = wall.a + (wall.b - wall.a) * t
                other.append(SIMD2(Float(p.x) + (random.next() - 0.5) * 0.02, Float(p.y) + (random.next() - 0.5) * 0.02))
            }
        }
        let cameras = [SIMD2(0.8, 0.6), SIMD2(4.2, 0.7), SIMD2(4.3, 2.0), SIMD2(1.2, 3.4)].map {
            FloorPlan.Camera(position: $0, heading: SIMD2(2, 1.5) - $0)
        }
        return FloorPlan(
            floorPoints: floor, otherPoints: other, walls: walls, outlineClosed: true, cameras: cameras,
            caption: "L-shaped room, 16.25 m², perimeter 18.00 m, h 2.50 m")
    }

    func testLShapedRoomLabelsFindPlacesOfTheirOwn() throws {
        let renderer = try FloorPlanRenderer()
        let plan = Self.plan
        let layout = renderer.layout(plan)
        let floor = FloorPlanOccupancy(
            plan.floorPoints, frame: layout.frame, width: renderer.width, height: renderer.height,
            cell: layout.cell)
        let labels = renderer.labels(plan, layout: layout, floor: floor)
        XCTAssertEqual(labels.map(\.text), plan.walls.map { $0.label! })
        for (i, label) in labels.enumerated() {
            XCTAssertTrue(layout.labelBounds.contains(label.box), "\(label.text): inside the picture, below the caption")
            for wall in layout.walls {
                XCTAssertFalse(
                    label.box.touches(segment: wall.a, wall.b, radius: layout.lineThickness / 2),
                    "\(label.text) must not cover a wall line")
            }
            for other in labels[..<i] {
                XCTAssertFalse(label.box.overlaps(other.box), "\(label.text) overlaps \(other.text)")
            }
            // Outside the room: the box's centre, back in metres, is not on the floor.
            let centre = SIMD2(Double(label.box.x0 + label.box.x1) / 2, Double(label.box.y0 + label.box.y1) / 2)
            let metres = SIMD2(
                layout.frame.centre.x + (centre.x - layout.frame.pixelCentre.x) / layout.frame.pixelsPerMetre,
                layout.frame.centre.y - (centre.y - layout.frame.pixelCentre.y) / layout.frame.pixelsPerMetre)
            XCTAssertFalse(Self.insideL(metres), "\(label.text) of wall \(i) sits inside the room at \(metres)")
        }

        let image = renderer.render(plan)
        let png = try PNGWriter.encode(rgb: image, compressionLevel: 9, fastFilter: false, origin: "floor-plan-example.png")
        XCTAssertLessThan(png.count, 100_000, "the example picture stays small enough for the docs")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("floor-plan-example.png").path
        try AtomicFile.write(bytes: png, to: path)
        print("floor plan example: \(path) (\(png.count) bytes)")
    }
}
