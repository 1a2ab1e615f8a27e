import ArgumentParser
import CloudCore
import CloudFiles
import CloudPipeline
import Foundation

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Describe a PLY or PCD cloud: points, fields, organized size, bounds, colors, what else the file holds.")

    @Argument(help: ArgumentHelp("The cloud to describe.", valueName: "file"))
    var file: String

    @Flag(help: "Print one JSON object on stdout, nothing else.")
    var json = false

    struct Report: Encodable {
        struct Grid: Encodable {
            var width: Int
            var height: Int
            /// Cells without a point (NaN placeholders in the file, or no range_grid entry).
            var emptyCells: Int
        }

        struct Bounds: Encodable {
            var min: [Float]
            var max: [Float]
            var size: [Float]
        }

        var path: String
        /// As the header spells it, byte order included ("PLY binary_big_endian").
        var format: String
        /// Points with finite coordinates: what `capture` and `convert` call points.
        var points: Int
        /// The point fields as the file names them.
        var fields: [String]
        /// Fields no channel holds (alpha, intensity, ...): `convert` does not carry them over.
        var ignoredFields: [String]
        /// PLY elements besides the points (faces of a mesh, PCL's camera): not read into the cloud.
        var otherElements: [CloudFileHeader.Element]
        @NullWhenAbsent var organized: Grid?
        var hasColors: Bool
        var hasNormals: Bool
        @NullWhenAbsent var viewpoint: [Double]?
        /// "metres", or "relative" when the file says its distances have no known scale.
        var units: String
        @NullWhenAbsent var bounds: Bounds?
    }

    func run() throws {
        let loaded = try CloudReader.read(file)
        let cloud = loaded.cloud
        let points = cloud.finiteCount
        let bounds = cloud.bounds.map { b in
            Report.Bounds(
                min: [b.min.x, b.min.y, b.min.z], max: [b.max.x, b.max.y, b.max.z],
                size: [b.max.x - b.min.x, b.max.y - b.min.y, b.max.z - b.min.z])
        }
        let report = Report(
            path: file, format: loaded.header.formatName, points: points, fields: loaded.fields, ignoredFields: loaded.ignoredFields,
            otherElements: loaded.header.otherElements,
            organized: cloud.organized.map { Report.Grid(width: $0.width, height: $0.height, emptyCells: cloud.count - points) },
            hasColors: cloud.colors != nil, hasNormals: cloud.normals != nil, viewpoint: loaded.header.viewpoint?.viewpoint,
            units: loaded.header.relativeUnits ? "relative" : "metres", bounds: bounds)
        if json {
            try Console.printJSON(report)
            return
        }
        print("\(file): \(report.format), \(report.points) points")
        var fields = report.fields.joined(separator: " ")
        if !report.ignoredFields.isEmpty { fields += " (not read: \(report.ignoredFields.joined(separator: " ")))" }
        print("  fields:    \(fields)")
        if !report.otherElements.isEmpty {
            let elements = report.otherElements.map { "\($0.name) \($0.count)" }.joined(separator: ", ")
            print("  elements:  \(elements) (not read: cloudgen reads the points)")
        }
        print("  organized: " + (report.organized.map { "\($0.width)x\($0.height), \($0.emptyCells) cells without a point" } ?? "no"))
        print("  colors:    \(report.hasColors ? "yes" : "no"), normals: \(report.hasNormals ? "yes" : "no")")
        if let v = report.viewpoint {
            print("  viewpoint: " + v.map { String(format: "%.4f", $0) }.joined(separator: " ") + " (tx ty tz qw qx qy qz)")
        }
        if let b = report.bounds {
            func v(_ a: [Float]) -> String { a.map { String(format: "%.4f", $0) }.joined(separator: " ") }
            let unit = loaded.header.relativeUnits ? " (relative units: no known scale, not metres)" : " m"
            print("  bounds:    min \(v(b.min))  max \(v(b.max))  size \(v(b.size))\(unit)")
        } else {
            print("  bounds:    none (no finite points)")
        }
    }
}
