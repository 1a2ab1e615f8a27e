import CloudCore
import Foundation
import SafeIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Unpacks an uploaded archive (zip or tar, told by its first bytes, not its name) into a folder,
/// within limits, refusing anything that could write outside the folder or fill the disk
/// (Docs/formats.md, "Archives"). On any failure, everything written so far is removed and the
/// folder is left empty, as it was given.
public enum ArchiveExtractor {
    /// macOS's Finder zips put resource forks ("._NAME") under this top-level folder; they are
    /// checked like every member but not extracted, so that a zipped folder stays one folder.
    static let macMetadataFolder = "__MACOSX"

    /// Members are streamed through one buffer of this size, whatever their sizes say.
    static let chunkSize = 1 << 16

    /// Extracts `archive` into `directory`, an existing empty folder. Messages name the archive
    /// as `origin` (the upload's part or file name; the path by default) and the member.
    ///
    /// - Throws: `CloudError.badInput` for anything wrong with the archive (not a zip or tar,
    ///   truncated, corrupt, a refused member, over a limit), `CloudError.io` when the file
    ///   system fails or `directory` is not an empty folder.
    public static func extract(
        archive: String, into directory: String, limits: ArchiveLimits = .standard,
        origin: String? = nil
    ) throws -> ArchiveSummary {
        let origin = origin ?? archive
        try checkEmptyFolder(directory)
        let file: InputFile
        do {
            file = try InputFile(archive, role: "the archive")
        } catch let error as CloudError where error.subject == .file(archive) {
            throw error.about(.file(origin))
        }
        let kind = try detect(file, origin: origin)
        let destination = ArchiveDestination(root: directory, origin: origin, limits: limits)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        do {
            switch kind {
            case .tar:
                var reader = TarReader(file: file, origin: origin, destination: destination, limits: limits, buffer: buffer)
                try reader.extract()
            case .zip:
                try ZipReader(file: file, origin: origin, destination: destination, limits: limits, buffer: buffer).extract()
            }
        } catch {
            destination.removeAll()
            throw error
        }
        let top = destination.topFolder
        return ArchiveSummary(
            kind: kind, members: destination.members, files: destination.files, bytes: destination.bytes,
            topFolder: top, root: top.map { directory + "/" + $0 } ?? directory)
    }

    /// The format by magic bytes: a zip starts with a local header ("PK\3\4"), or is empty and
    /// only its end record ("PK\5\6"); a tar header has "ustar" at byte 257.
    static func detect(_ file: InputFile, origin: String) throws -> ArchiveSummary.Kind {
        let head = try file.read(at: 0, count: TarHeader.blockSize)
        if head.isEmpty { throw ArchiveError.archive(origin, "an empty file, not a zip or tar archive") }
        if head.count >= 4 && (head.u32(0) == ZipReader.localSignature || head.u32(0) == ZipDirectory.endSignature) {
            return .zip
        }
        if head.count >= 262 && head[257..<262].elementsEqual("ustar".utf8) { return .tar }
        if head.count >= 2 && head[0] == 0x1F && head[1] == 0x8B {
            throw ArchiveError.archive(origin, "a gzip file; only uncompressed .tar and .zip archives are accepted")
        }
        throw ArchiveError.archive(origin, "not a zip or tar archive (unknown first bytes)")
    }

    private static func checkEmptyFolder(_ directory: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CloudError.io(.file(directory), "no such folder to extract an archive into")
        }
        guard (try? FileManager.default.contentsOfDirectory(atPath: directory))?.isEmpty == true else {
            throw CloudError.io(.file(directory), "not an empty folder; an archive is extracted only into a fresh one")
        }
    }
}
