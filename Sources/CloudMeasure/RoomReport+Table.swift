import Foundation

extension RoomReport {
    /// The report as `cloudgen measure` prints it for people: one number a line, with its
    /// uncertainty, and the reason wherever a number is missing.
    public var table: String {
        func m(_ value: Measured?, _ unit: String = "m", digits: Int = 3) -> String {
            guard let value else { return "-" }
            return String(format: "%.\(digits)f \(unit) ± %.\(digits)f", value.value, value.sigma)
        }
        func line(_ label: String, _ text: String) -> String { label.padding(toLength: 13, withPad: " ", startingAt: 0) + text }
        var lines: [String] = []
        lines.append(line("room", "\(source): \(points.finite) points, \(points.working) after a \(points.leaf) m voxel grid"))
        let upName = ["flag": "from --up", "source": "from the source", "planes": "from the room's level planes"][up.method] ?? up.method
        lines.append(
            line(
                "up",
                String(format: "(%.3f, %.3f, %.3f) %@", up.vector[0], up.vector[1], up.vector[2], upName)
                    + (up.floorTiltDegrees.map { String(format: "; floor tilted %.2f°", $0) } ?? "")))
        lines.append(line("height", height.map { m($0) } ?? "- (\(reasons["height"] ?? "not seen"))"))
        let wallCount = walls.filter(\.inOutline).count
        let outlineText = outline == "closed" ? "closed outline of \(wallCount) walls" : "open outline: the floor seen"
        lines.append(
            line("floor area", area.map { m($0, "m²", digits: 2) + "  (\(outlineText))" } ?? "- (\(reasons["area"] ?? "not seen"))"))
        lines.append(line("perimeter", perimeter.map { m($0, digits: 2) } ?? "- (\(reasons["perimeter"] ?? "not seen"))"))
        if let x = extents.x, let y = extents.y {
            lines.append(
                line(
                    "extents",
                    String(format: "%.3f x %.3f", x.value, y.value) + (extents.z.map { String(format: " x %.3f", $0.value) } ?? "")
                        + " m (\(extents.from))"))
        }
        if let h = cameras.height { lines.append(line("camera", m(h) + " above the floor")) }
        if !walls.isEmpty {
            lines.append(line("walls", "length              height              seen"))
            for wall in walls {
                let length = wall.length.map { m($0) } ?? "-"
                let height = wall.height.map { m($0) } ?? "-"
                lines.append(
                    line(
                        "  \(wall.index + 1)",
                        length.padding(toLength: 20, withPad: " ", startingAt: 0)
                            + height.padding(toLength: 20, withPad: " ", startingAt: 0)
                            + String(format: "%.2f m", wall.visibleLength) + (wall.reason.map { "  (\($0))" } ?? "")))
            }
        } else {
            lines.append(line("walls", "none seen"))
        }
        let level = clutter.filter { $0.kind == "level" }.count
        let vertical = clutter.count - level
        lines.append(line("not walls", "\(level) level and \(vertical) vertical planes (furniture)"))
        for key in ["floor", "ceiling"] where reasons[key] != nil {
            lines.append(line(key, "- (\(reasons[key]!))"))
        }
        return lines.joined(separator: "\n")
    }
}
