import CloudCore
import CloudImages
import CloudMeasure
import CloudRender
import Foundation
import SafeIO

/// `measure --plan FILE.png`: the measured room drawn from above by CloudRender's floor-plan
/// renderer, each wall labelled with its length, the caption summing up the room.
enum FloorPlanPicture {
    static func write(_ measurement: RoomMeasurement, to path: String) throws {
        let report = measurement.report
        let data = measurement.plan
        let plan = FloorPlan(
            floorPoints: data.floorPoints, otherPoints: data.otherPoints,
            walls: data.walls.map { FloorPlan.Wall(a: $0.start, b: $0.end, label: $0.length.map { String(format: "%.2f m", $0.value) }) },
            outlineClosed: data.closed,
            cameras: data.cameras.map { FloorPlan.Camera(position: $0.position, heading: $0.heading) },
            caption: caption(report))
        let image = try FloorPlanRenderer().render(plan)
        try AtomicFile.write(bytes: try PNGWriter.encode(rgb: image, origin: path), to: path)
    }

    /// "5.00 x 4.00 m, 20.0 m², h 2.80 m", with what is known.
    static func caption(_ report: RoomReport) -> String {
        var parts: [String] = []
        if let x = report.extents.x, let y = report.extents.y { parts.append(String(format: "%.2f x %.2f m", x.value, y.value)) }
        if let area = report.area { parts.append(String(format: "%.1f m²", area.value) + (report.outline == "open" ? " seen" : "")) }
        if let height = report.height { parts.append(String(format: "h %.2f m", height.value)) }
        return parts.isEmpty ? "no room outline seen" : parts.joined(separator: ", ")
    }
}
