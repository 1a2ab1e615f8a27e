import CloudCore
import Foundation

/// Which source reads an unpacked archive: the `source` field when the client says
/// (bundle, tum, redwood, pclgrabber, polycam, stray, record3d), otherwise what the folder holds. A
/// Record3D `.r3d` (its `metadata` and `rgbd/`) is refused with the export to make instead.
enum ArchiveSource {
    static let kinds = ["bundle", "tum", "redwood", "pclgrabber", "polycam", "stray", "record3d"]

    static func spec(kind: String?, folder: String) throws -> String {
        if let kind {
            guard kinds.contains(kind) else {
                throw Problem.unprocessable("source \(MessageTextShort.of(kind)): an archive holds one of \(kinds.joined(separator: ", "))", field: "source")
            }
            return "\(kind):\(folder)"
        }
        let names = Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
        if names.contains("manifest.json") { return "bundle:\(folder)" }
        if names.contains("rgb.txt") && names.contains("depth.txt") { return "tum:\(folder)" }
        if names.contains("metadata.json") && names.contains("rgb") && names.contains("depth") { return "record3d:\(folder)" }
        if names.contains("metadata") && names.contains("rgbd") {
            throw Problem.unprocessable("bundle: a Record3D .r3d recording, whose depth is LZFSE-compressed, which cloudgen cannot read; "
                                        + "export the recording from Record3D as \"EXR + JPG\" and upload a zip of that folder", field: "bundle")
        }
        if names.contains("color") && names.contains("depth") { return "redwood:\(folder)" }
        if names.contains(where: { $0.hasSuffix(".xml") }) && names.contains(where: { $0.contains("_depth.") }) { return "pclgrabber:\(folder)" }
        if names.contains("keyframes") { return "polycam:\(folder)" }
        if names.contains("rgb.mp4") && names.contains("odometry.csv") { return "stray:\(folder)" }
        throw Problem.unprocessable("bundle: the archive holds neither a capture bundle (manifest.json), a TUM sequence (rgb.txt, depth.txt), "
                                    + "a Redwood folder (color/, depth/), PCL grabber frames (*.xml, *_depth.*), a Polycam raw-data export (keyframes/) "
                                    + "nor a Stray Scanner export (rgb.mp4, odometry.csv); "
                                    + "nor a Record3D EXR + JPG export (metadata.json, rgb/, depth/); "
                                    + "say which with the source field",
                                    field: "bundle")
    }
}
