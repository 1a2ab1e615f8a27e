/// What an archive held once extracted.
public struct ArchiveSummary: Equatable, Sendable {
    public enum Kind: String, Sendable {
        case tar
        case zip
    }

    /// The format, told by the file's first bytes.
    public var kind: Kind
    /// Files and folders extracted (folders the archive only implies, by a file's path, do not count).
    public var members: Int
    /// Regular files extracted.
    public var files: Int
    /// Bytes of all files extracted.
    public var bytes: Int
    /// The one folder everything was in, when the archive wraps its content in a single
    /// top-level folder (as `zip -r scan.zip scan` does); nil when the top level has several
    /// entries or a file.
    public var topFolder: String?
    /// Where the content starts: the destination joined with `topFolder`, or the destination
    /// itself. A dataset or bundle source is pointed here.
    public var root: String
}
