import CloudCore

/// How the point data of a cloud file is stored (the CLI's `--encoding`).
public enum CloudEncoding: String, CaseIterable, Sendable {
    case binary
    case ascii
    /// PCD's binary_compressed (LZF). PLY has no compressed form; for PLY it means binary.
    case compressed
}

/// A cloud file format cloudgen reads and writes (with its own readers and encoders, this module).
public enum CloudFileFormat: Equatable, Hashable, Sendable, CustomStringConvertible {
    public enum PLYEncoding: Equatable, Hashable, Sendable {
        /// binary_little_endian 1.0 when writing; either byte order when reading.
        case binary
        case ascii
    }

    public enum PCDEncoding: Equatable, Hashable, Sendable {
        case ascii
        case binary
        case compressed
    }

    case ply(PLYEncoding)
    case pcd(PCDEncoding)

    /// The format for `path` chosen by its extension (`.ply` or `.pcd`, any case) and `encoding`.
    public init(path: String, encoding: CloudEncoding = .binary) throws {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let ext = name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]).lowercased() } ?? ""
        switch ext {
        case "ply":
            self = .ply(encoding == .ascii ? .ascii : .binary)
        case "pcd":
            switch encoding {
            case .ascii: self = .pcd(.ascii)
            case .binary: self = .pcd(.binary)
            case .compressed: self = .pcd(.compressed)
            }
        default:
            throw CloudError.badInput(.file(path), "unknown cloud file extension '\(ext.isEmpty ? "" : "." + ext)' (use .ply or .pcd)")
        }
    }

    /// The format's name as its header spells it, e.g. "PCD binary_compressed".
    public var description: String {
        switch self {
        case .ply(.binary): return "PLY binary_little_endian"
        case .ply(.ascii): return "PLY ascii"
        case .pcd(.ascii): return "PCD ascii"
        case .pcd(.binary): return "PCD binary"
        case .pcd(.compressed): return "PCD binary_compressed"
        }
    }
}
