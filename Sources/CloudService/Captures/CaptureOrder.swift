import CloudCapture
import CloudCore
import CloudFiles
import CloudPCL
import CloudPipeline
import Foundation

/// What one capture request asks for, whichever way it came (form fields beside uploaded images,
/// a JSON body naming a server-side source, fields beside an uploaded archive), parsed with the
/// CLI's own parsers and refused with the CLI's own messages, each naming its field.
struct CaptureOrder: Sendable {
    /// nil for a pushed stream, whose frames arrive over its socket.
    var source: SourceSpec?
    var options = SourceOptions()
    var frame = OutputFrame.camera
    var range: ClosedRange<Float>?
    var frameLimit: Int? = 1
    var fuse = false
    var steps: [FilterStep] = []
    var organized = false

    var filters: FilterPipeline { FilterPipeline(steps: steps, organized: organized) }

    /// The filter fields, named as the CLI's flags without their dashes (`FilterKind.listed`).
    static let filterFields = Set(FilterKind.listed.map(\.name))

    /// Applies one field. `depth_scale`, `depth_encoding` and the rest of a route's own fields
    /// are the caller's.
    mutating func apply(field name: String, value: String) throws {
        switch name {
        case "range":
            guard let parsed = DepthRange(text: value) else {
                throw Problem.unprocessable(
                    "range \(MessageTextShort.of(value)): \(DepthRange.rule)",
                    field: name)
            }
            range = parsed.limits
        case "organized":
            organized = try Self.boolean(value, field: name)
        case "fuse":
            fuse = try Self.boolean(value, field: name)
        case "frame":
            guard let parsed = OutputFrame(rawValue: value) else {
                throw Problem.unprocessable("frame \(MessageTextShort.of(value)): needs camera or world", field: name)
            }
            frame = parsed
        case "frames":
            if value == "all" {
                frameLimit = nil
            } else if let n = Int(value), (1...Self.maxFrames).contains(n) {
                frameLimit = n
            } else {
                throw Problem.unprocessable("frames \(MessageTextShort.of(value)): needs a count 1...\(Self.maxFrames) or all", field: name)
            }
        case "foreground":
            guard try Self.boolean(value, field: name) else { return }
            try WorkLimits.checkStepCount(steps.count + 1, field: name)
            steps.append(try Self.step(name, nil))
        default:
            try WorkLimits.checkStepCount(steps.count + 1, field: name)
            steps.append(try Self.step(name, value.isEmpty ? nil : value))
        }
    }

    /// A capture stores one cloud, and the service's work queue is not for hour-long recordings.
    static let maxFrames = 10_000

    /// Refuses combinations before any work: the pipeline's own check, and one cloud per capture.
    func check() throws {
        if (frameLimit ?? 2) > 1 && !fuse {
            throw Problem.unprocessable(
                "frames \(frameLimit.map(String.init) ?? "all"): a capture stores one cloud; add fuse=true to merge the frames",
                field: "fuse")
        }
        do {
            try pipeline(outputs: [], pictures: nil, observer: SilentObserver()).check()
        } catch let error as CloudError {
            // What the pipeline refuses is a combination with fusing (a grid filter, --organized).
            throw Problem.unprocessable(FieldWording.detail(error), field: "fuse")
        }
    }

    func pipeline(outputs: [(path: String, format: CloudFileFormat)], pictures: PreviewOutputs?, observer: CaptureObserver)
        -> CapturePipeline
    {
        CapturePipeline(
            source: source, sourceOptions: options, frame: frame, range: range, frameLimit: frameLimit,
            fuse: fuse, outputs: outputs, filters: filters, pictures: pictures, observer: observer)
    }

    static func step(_ name: String, _ value: String?) throws -> FilterStep {
        do {
            return try FilterArguments.step(option: name, value: value)
        } catch let error as CloudError {
            throw Problem.from(error)
        }
    }

    static func boolean(_ value: String, field: String) throws -> Bool {
        switch value.lowercased() {
        case "", "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw Problem.unprocessable("\(field) \(MessageTextShort.of(value)): needs true or false", field: field)
        }
    }
}
