import ArgumentParser
import CloudCore
import CloudFiles
import CloudPCL
import Foundation

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Describe a PLY or PCD cloud: points, fields, organized size, bounds, colors.")

    @Argument(help: ArgumentHelp("The cloud to describe.", valueName: "file"))
    var file: String

    @Flag(help: "Print one JSON object on stdout, nothing else.")
    var json = false

    struct Report: Encodable {
        struct Grid: Encodable {
            var width: Int
            var height: Int
        }

        struct Bounds: Encodable {
            var min: [Float]
            var max: [Float]
            var size: [Float]
        }

        var path: String
        var format: String
        var points: Int
        /// Points with finite coordinates (organized clouds hold NaN placeholders).
        var finitePoints: Int
        var fields: [String]
        @NullWhenAbsent var organized: Grid?
        var hasColors: Bool
        var hasNormals: Bool
        @NullWhenAbsent var bounds: Bounds?
    }

    func run() throws {
        let loaded = try CloudReader.read(file)
        let cloud = loaded.cloud
        let bounds = cloud.bounds.map { b in
            Report.Bounds(min: [b.min.x, b.min.y, b.min.z], max: [b.max.x, b.max.y, b.max.z],
                          size: [b.max.x - b.min.x, b.max.y - b.min.y, b.max.z - b.min.z])
        }
        let report = Report(
            path: file, format: loaded.format.description, points: cloud.count,
            finitePoints: cloud.finiteCount, fields: loaded.fields,
            organized: cloud.organized.map { Report.Grid(width: $0.width, height: $0.height) },
            hasColors: cloud.colors != nil, hasNormals: cloud.normals != nil, bounds: bounds)
        if json {
            try Console.printJSON(report)
            return
        }
        print("\(file): \(report.format), \(report.points) points (\(report.finitePoints) finite)")
        print("  fields:    \(report.fields.joined(separator: " "))")
        print("  organized: " + (report.organized.map { "\($0.width)x\($0.height)" } ?? "no"))
        print("  colors:    \(report.hasColors ? "yes" : "no"), normals: \(report.hasNormals ? "yes" : "no")")
        if let b = report.bounds {
            func v(_ a: [Float]) -> String { a.map { String(format: "%.4f", $0) }.joined(separator: " ") }
            print("  bounds:    min \(v(b.min))  max \(v(b.max))  size \(v(b.size)) m")
        } else {
            print("  bounds:    none (no finite points)")
        }
    }
}
