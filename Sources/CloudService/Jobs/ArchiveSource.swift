import CloudCapture
import CloudCore
import Foundation

/// Which source reads an unpacked archive: the `source` field when the client says (a kind with a
/// folder layout in `SourceKind.all`), otherwise the kind whose layout the folder has. A Record3D
/// `.r3d` (its `metadata` and `rgbd/`) is refused with the export to make instead.
enum ArchiveSource {
    static var kinds: [String] { SourceKind.all.filter { $0.layout != nil }.map(\.name) }

    static func spec(kind: String?, folder: String) throws -> SourceSpec {
        if let kind {
            guard let row = SourceKind.named(kind), row.layout != nil else {
                throw Problem.unprocessable(
                    "source \(MessageTextShort.of(kind)): an archive holds one of \(kinds.joined(separator: ", "))", field: "source")
            }
            return .folder(row, folder)
        }
        let names = Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
        if let recognised = SourceKind.recognise(folderEntries: names) { return .folder(recognised, folder) }
        if names.contains("metadata") && names.contains("rgbd") {
            throw Problem.unprocessable(
                "bundle: a Record3D .r3d recording, whose depth is LZFSE-compressed, which cloudgen cannot read; "
                    + "export the recording from Record3D as \"EXR + JPG\" and upload a zip of that folder", field: "bundle")
        }
        let layouts = SourceKind.all.compactMap(\.layout?.description)
        throw Problem.unprocessable(
            "bundle: the archive holds neither \(layouts.dropLast().joined(separator: ", ")) nor \(layouts.last ?? ""); "
                + "say which with the source field", field: "bundle")
    }
}
