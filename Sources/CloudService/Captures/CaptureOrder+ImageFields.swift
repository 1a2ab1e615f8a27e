import CloudCapture
import CloudCore

extension CaptureOrder {
    /// The form fields beside uploaded images (or an archive), in the order they came.
    mutating func applyImageFields(_ fields: [(name: String, value: String)]) throws {
        for (name, value) in fields {
            switch name {
            case "depth_scale":
                guard let scale = Double(value), scale.isFinite, scale > 0 else {
                    throw Problem.unprocessable(
                        "depth_scale \(MessageTextShort.of(value)): needs the raw depth units per metre, a positive number (1000 for millimetres, 5000 for TUM)",
                        field: name)
                }
                options.depthUnitsPerMetre = scale
            case "depth_encoding":
                guard let encoding = DepthFileEncoding(rawValue: value) else {
                    throw Problem.unprocessable(
                        "depth_encoding \(MessageTextShort.of(value)): needs \(DepthFileEncoding.allCases.map(\.rawValue).joined(separator: ", "))",
                        field: name)
                }
                options.depthEncoding = encoding
            case "source", "name", "tags", "note":
                continue
            default:
                if try applyPhotoField(name, value) { continue }
                try apply(field: name, value: value)
            }
        }
    }
}
