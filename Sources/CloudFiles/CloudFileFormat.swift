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

/// A container cloudgen writes, as every door presents it: its name (the CLI's `--ply`/`--pcd`, the
/// service's `format` and `/cloud.ply` routes), MIME type, and the encodings it is written in under
/// the names both doors take. `CloudContainer.all` is the one table: the CLI's outputs, the export
/// and convert routes and their refusals read it, and a test holds the OpenAPI document to it.
public struct CloudContainer: Sendable {
    public let name: String
    public let mimeType: String
    /// Each encoding's name and the format it writes, in the order messages list them.
    public let encodings: [(name: String, format: CloudFileFormat)]

    public static let ply = CloudContainer(
        name: "ply", mimeType: "application/x-ply", encodings: [("binary", .ply(.binary)), ("ascii", .ply(.ascii))])
    public static let pcd = CloudContainer(
        name: "pcd", mimeType: "application/x-pcd",
        encodings: [("binary", .pcd(.binary)), ("ascii", .pcd(.ascii)), ("binary_compressed", .pcd(.compressed))])

    public static let all = [ply, pcd]

    public static func named(_ name: String) -> CloudContainer? {
        all.first { $0.name == name }
    }

    /// The format `encoding` (a door's name for it: binary, ascii, binary_compressed) writes.
    public func format(_ encoding: String) -> CloudFileFormat? {
        encodings.first { $0.name == encoding }?.format
    }

    /// Why `encoding` is not one of this container's, in the words both doors use.
    public func refusal(_ encoding: String) -> String {
        "\(name.uppercased()) is written as \(encodings.map(\.name).sorted().joined(separator: ", "))"
    }

    /// This container's format for the CLI's `--encoding` (whose `compressed` is binary_compressed).
    public func format(_ encoding: CloudEncoding) -> CloudFileFormat? {
        format(encoding == .compressed ? "binary_compressed" : encoding.rawValue)
    }
}
