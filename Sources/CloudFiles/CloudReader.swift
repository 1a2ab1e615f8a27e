import CloudCore
import SafeIO

/// A cloud read from a file, with what the file says about itself.
public struct CloudFile: Equatable, Sendable {
    public var cloud: PointCloud
    /// The header as the file spells it (format, field names, grid, other elements).
    public var header: CloudFileHeader
    /// Fields of the points that no channel of the cloud holds (intensity, alpha, a histogram):
    /// read past, and reported so that nothing is dropped silently.
    public var ignoredFields: [String]

    public var format: CloudFileFormat { header.format }
    /// The point fields as the file names them.
    public var fields: [String] { header.fields }
}

/// Reads PCD (v.5 to v0.7; ascii, binary, binary_compressed) and PLY (ascii, binary in either
/// byte order) files: one reader per format that owns all of its validation, from the header's
/// counts (held against the file's size before anything is allocated for them) to every value
/// of the data (an ascii token that is not a number, a list longer than the file, a grid index
/// past the vertices are errors, never zeros or a crash). Nothing of a file reaches PCL.
public enum CloudReader {
    /// The header of the cloud file at `path`, parsed and checked in itself; its counts are held
    /// against the data, and the data read, only by `read`.
    public static func header(_ path: String) throws -> CloudFileHeader {
        let file = try InputFile(path)
        return try withHeader(of: file) { $0.fileHeader }
    }

    /// Reads the cloud at `path`: positions as float (whatever the file stores), colors from
    /// packed rgb / rgba or separate red green blue fields, normals from normal_x.. or nx.., and
    /// the curvature field beside normals; other fields are read past (`ignoredFields`). An
    /// organized file (PCD HEIGHT > 1, PLY obj_info grid) keeps its grid, with NaN positions where
    /// it has no point.
    public static func read(_ path: String) throws -> CloudFile {
        let file = try InputFile(path)
        return try withHeader(of: file) { header in
            var stream = ByteStream(file: file, from: header.fileHeader.dataOffset)
            defer { stream.close() }
            return try header.readBody(&stream, path: path)
        }
    }

    /// Reads a cloud file held in memory (an upload, a fuzzer's input); `path` names it in errors.
    public static func read(bytes: UnsafeRawBufferPointer, path: String) throws -> CloudFile {
        guard let header = try ParsedHeader(bytes, atEnd: true, path: path) else {
            throw CloudError.badInput(.file(path), "the header never ends (no end_header or DATA line)")
        }
        var stream = ByteStream(bytes: bytes, from: header.fileHeader.dataOffset, path: path)
        return try header.readBody(&stream, path: path)
    }

    /// Reads the header from the file's first bytes, more of them while it goes on, up to the limit.
    private static func withHeader<T>(of file: InputFile, _ body: (ParsedHeader) throws -> T) throws -> T {
        var bytes = try file.read(at: 0, count: min(file.size, 1 << 16))
        while true {
            let atEnd = bytes.count == file.size
            if let header = try bytes.withUnsafeBytes({ try ParsedHeader($0, atEnd: atEnd, path: file.path) }) {
                return try body(header)
            }
            let kind = bytes.starts(with: Array("ply".utf8)) ? "PLY" : "PCD"
            guard !atEnd else {
                throw CloudError.badInput(
                    .file(file.path), "the \(kind) header never ends (no \(kind == "PLY" ? "end_header" : "DATA") line)")
            }
            guard bytes.count < CloudFileLimits.maxHeaderBytes else {
                throw CloudError.badInput(
                    .file(file.path), "no end of the \(kind) header within the first \(CloudFileLimits.maxHeaderBytes) bytes")
            }
            bytes = try file.read(at: 0, count: min(file.size, bytes.count * 4, CloudFileLimits.maxHeaderBytes))
        }
    }
}

/// A PLY or PCD header, told apart by the file's first line.
private enum ParsedHeader {
    case ply(PLYHeader)
    case pcd(PCDHeader)

    /// nil when `bytes` end before the header does.
    init?(_ bytes: UnsafeRawBufferPointer, atEnd: Bool, path: String) throws {
        let isPLY = bytes.count > 3 && bytes.starts(with: Array("ply".utf8)) && (bytes[3] == 0x0A || bytes[3] == 0x0D)
        if isPLY {
            guard let header = try PLYHeaderParser(path: path).parse(bytes, atEnd: atEnd) else { return nil }
            self = .ply(header)
        } else {
            guard let header = try PCDHeaderParser(path: path).parse(bytes, atEnd: atEnd) else { return nil }
            self = .pcd(header)
        }
    }

    var fileHeader: CloudFileHeader {
        switch self {
        case let .ply(h):
            let grid = h.columns > 0 ? (h.columns, h.rows) : (h.vertex.count, 1)
            let others = h.elements.filter { $0.name != "vertex" && $0.name != "range_grid" }.map {
                CloudFileHeader.Element(name: $0.name, count: $0.count)
            }
            return CloudFileHeader(
                format: .ply(h.ascii ? .ascii : .binary), isBigEndian: h.bigEndian, fields: h.vertex.properties.map(\.name),
                pointCount: grid.0 * grid.1, width: grid.0, height: grid.1, dataOffset: h.dataOffset,
                viewpoint: h.viewpoint, relativeUnits: h.relativeUnits, otherElements: others)
        case let .pcd(h):
            let encoding: CloudFileFormat.PCDEncoding = h.encoding == .ascii ? .ascii : h.encoding == .binary ? .binary : .compressed
            return CloudFileHeader(
                format: .pcd(encoding), isBigEndian: false, fields: h.fields.map(\.name), pointCount: h.points,
                width: h.width, height: h.height, dataOffset: h.dataOffset, viewpoint: h.viewpoint,
                relativeUnits: h.relativeUnits)
        }
    }

    func readBody(_ stream: inout ByteStream, path: String) throws -> CloudFile {
        let header = self.fileHeader
        switch self {
        case let .pcd(h):
            let reader = try PCDBodyReader(header: h, path: path)
            let output = try reader.read(&stream)
            let grid = h.height > 1 ? PointCloud.Grid(width: h.width, height: h.height) : nil
            return CloudFile(cloud: output.cloud(grid: grid), header: header, ignoredFields: reader.channels.ignored)
        case let .ply(h):
            let reader = try PLYBodyReader(header: h, path: path)
            let body = try reader.read(&stream)
            let grid = h.rows > 1 ? PointCloud.Grid(width: h.columns, height: h.rows) : nil
            let cloud = body.cells.map { body.vertices.scattered(into: $0, grid: grid) } ?? body.vertices.cloud(grid: grid)
            return CloudFile(cloud: cloud, header: header, ignoredFields: reader.channels.ignored)
        }
    }
}

extension CloudOutput {
    /// The vertices placed in their grid cells (`cells[i]`: cell i's vertex, -1 for none), empty
    /// cells holding NaN positions, normals and curvature and black colors, as PCL's organized
    /// clouds do.
    func scattered(into cells: [Int32], grid: PointCloud.Grid?) -> PointCloud {
        let n = cells.count
        var positions = [Float](repeating: .nan, count: 3 * n)
        var colors = self.colors.map { _ in [UInt8](repeating: 0, count: 3 * n) }
        var normals = self.normals.map { _ in [Float](repeating: .nan, count: 3 * n) }
        var curvature = self.curvature.map { _ in [Float](repeating: .nan, count: n) }
        for (cell, vertex) in cells.enumerated() where vertex >= 0 {
            let v = Int(vertex)
            for k in 0..<3 {
                positions[3 * cell + k] = self.positions[3 * v + k]
                colors?[3 * cell + k] = self.colors![3 * v + k]
                normals?[3 * cell + k] = self.normals![3 * v + k]
            }
            curvature?[cell] = self.curvature![v]
        }
        return PointCloud(positions: positions, colors: colors, normals: normals, curvature: curvature, organized: grid)
    }
}
