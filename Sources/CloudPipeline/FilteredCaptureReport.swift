import CloudPCL

/// `capture --json`: the capture report with a `filters` array beside its keys (empty without
/// filter flags), one entry per step in the order run: name, argument, parameters, points in and
/// out, milliseconds (summed over the frames of a sequence).
public struct FilteredCaptureReport: Encodable {
    public var report: CaptureReport
    public var filters: [FilterStepReport]

    public init(report: CaptureReport, filters: [FilterStepReport]) {
        self.report = report
        self.filters = filters
    }

    private enum Key: String, CodingKey {
        case filters
    }

    public func encode(to encoder: Encoder) throws {
        // Both write into the same JSON object: the report's keys, then "filters".
        try report.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(filters, forKey: .filters)
    }
}
