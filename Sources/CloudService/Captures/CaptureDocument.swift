import CloudPCL
import CloudPipeline
import Foundation

/// A stored capture's JSON, as POST answers it and GET returns it: `capture --json`'s report
/// (camera, counts, range, filters, timings), less the server's file paths, plus the id, the
/// creation time, the cloud's bounds and the links to its files. It is worded for HTTP when it is
/// made (`warnings` as the client knows them, each filter's `argument` as its field), so that
/// the stored copy is returned as it is.
struct CaptureDocument {
    var created: Date
    var source: String
    var points: Int
    var bounds: CaptureRecord.Bounds?
    var cloudBytes: Int
    var json: String

    init(
        id: String, created: Date, report: CaptureReport, filters: [FilterStepReport], warnings: [String],
        describe: (String) -> String
    ) throws {
        var object = try JSONValue(encoding: FilteredCaptureReport(report: report, filters: filters))
        let file = report.files.first
        for key in ["files", "images", "rgbdDirectory", "bundleDirectory"] { object[key] = nil }
        self.created = created
        source = describe(report.source)
        points = file?.points ?? 0
        cloudBytes = file?.bytes ?? 0
        bounds = file?.bounds.map { b in
            CaptureRecord.Bounds(min: SIMD3(b.min.map(Double.init)), max: SIMD3(b.max.map(Double.init)))
        }
        object["source"] = .string(source)
        object["id"] = .string(id)
        object["created"] = .string(Self.timestamp(created))
        object["points"] = .integer(points)
        object["bytes"] = .integer(cloudBytes)
        object["bounds"] = try file?.bounds.map { try JSONValue(encoding: $0) } ?? .null
        object["warnings"] = JSONValue(warnings)
        if case .array(let steps) = object["filters"] {
            object["filters"] = .array(
                zip(steps, filters).map { step, report in
                    var step = step
                    step["argument"] = .string(FieldWording.text(report.option))
                    return step
                })
        }
        let base = "/v1/captures/\(id)"
        object["links"] = JSONValue([
            "self": base, "cloud_ply": base + "/cloud.ply", "cloud_pcd": base + "/cloud.pcd",
            "preview": base + "/preview.png", "depth": base + "/depth.png"
        ])
        json = String(decoding: try object.encoded(), as: UTF8.self)
    }

    /// RFC 3339 in UTC with milliseconds: 2026-11-25T12:00:00.123Z.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
