/// The member names a zip file's central directory lists, read and checked as extraction reads
/// them (`ZipDirectory`, under `limits`) but without extracting anything: enough to tell what an
/// archive is (a Record3D `.r3d` is a zip) before deciding to read it.
import SafeIO

public enum ZipMemberNames {
    public static func read(_ path: String, limits: ArchiveLimits = .standard) throws -> [String] {
        let file = try InputFile(path, role: "a zip archive")
        return try ZipDirectory(file: file, origin: path, limits: limits).entries.map { String(decoding: $0.name, as: UTF8.self) }
    }
}
