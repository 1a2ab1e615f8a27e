import CloudCapture
import CloudCore
import Foundation

/// An uploaded `photo` part: an iPhone HEIC or JPEG with depth, captured as `capture --source
/// photo:FILE` does. The photo carries its own calibration, so no intrinsics part is taken;
/// `known_distance` and `matte` are its fields (`CaptureOrder.applyImageFields`).
enum PhotoUpload {
    /// The parts a photo cannot come with: it holds its color, depth and calibration.
    static let excludedParts = ["depth", "color", "intrinsics", "bundle"]

    static func order(_ photo: UploadedParts.File, _ parts: UploadedParts) throws -> CaptureOrder {
        if let extra = excludedParts.first(where: { parts.files[$0] != nil }) {
            throw Problem.badRequest(
                "part \(extra) cannot come with a photo: the photo holds its own color, depth and calibration", field: extra)
        }
        if let source = parts.field("source") {
            throw Problem.badRequest(
                "field source \(MessageTextShort.of(source)) names a server-side source; a photo is captured as photo:", field: "source")
        }
        var order = CaptureOrder(source: .photo(path: photo.path))
        try order.applyImageFields(parts.fields)
        try order.check()
        return order
    }
}

extension CaptureOrder {
    /// `known_distance` (X,Y=METRES) and `matte`, the photo source's fields (form or JSON); false
    /// for any other field.
    mutating func applyPhotoField(_ name: String, _ value: String) throws -> Bool {
        switch name {
        case "known_distance":
            do {
                options.knownDistance = try KnownDistance(parsing: value)
            } catch let error as CloudError {
                throw Problem.from(error)
            }
        case "matte":
            options.matte = try Self.boolean(value, field: name)
        default:
            return false
        }
        return true
    }
}
