import CloudCore
import CloudIO

/// The PLY half of HeaderCheck. Besides the elements' counts it checks the `obj_info num_cols /
/// num_rows` lines: PCL's PLYReader sizes its buffer from them (they are how it stores an
/// organized cloud's grid, next to a `range_grid` element), so they are claims like any count.
struct PLYHeaderParser {
    let path: String

    private struct Element {
        var name: String
        var count: Int
        var properties: [String] = []
        var scalarProperties: Set<String> = []
        /// Bytes of a row with every list empty (binary).
        var minimumRowBytes = 0
        /// Numbers in a row with every list empty (ascii).
        var minimumRowValues = 0
    }

    private static let typeSizes: [String: Int] = [
        "char": 1, "int8": 1, "uchar": 1, "uint8": 1,
        "short": 2, "int16": 2, "ushort": 2, "uint16": 2,
        "int": 4, "int32": 4, "uint": 4, "uint32": 4,
        "float": 4, "float32": 4, "double": 8, "float64": 8,
    ]

    /// The parsed header, or nil when `bytes` end before its end_header line.
    func parse(_ bytes: [UInt8], atEnd: Bool) throws -> Parsed? {
        var lines = HeaderLines(bytes, atEnd: atEnd)
        guard lines.next() == ["ply"] else { throw bad("not a PLY file (the first line is not 'ply')") }
        var encoding: (CloudFileFormat.PLYEncoding, bigEndian: Bool)?
        var elements: [Element] = []
        var columns = 0
        var rows = 0
        var viewpoint: Pose?
        while let tokens = lines.next() {
            guard let keyword = tokens.first else { continue }
            switch keyword {
            case "comment":
                // Free text, but for cloudgen's record of where the camera stood (Pose.viewpoint).
                guard tokens.count >= 3, tokens[1] == "cloudgen", tokens[2] == "viewpoint" else { continue }
                guard tokens.count == 10, let pose = Pose(viewpoint: tokens[3...].compactMap { Double($0) }) else {
                    throw bad("comment cloudgen viewpoint needs 7 finite numbers (tx ty tz qw qx qy qz, a non-zero quaternion)")
                }
                viewpoint = pose == .identity ? nil : pose
            case "obj_info":
                // PCL reads these two as the cloud's grid; other obj_info lines are free text.
                if tokens.count >= 3, tokens[1] == "num_cols" {
                    columns = try HeaderCheck.count(tokens[2], "obj_info num_cols", path: path)
                } else if tokens.count >= 3, tokens[1] == "num_rows" {
                    rows = try HeaderCheck.count(tokens[2], "obj_info num_rows", path: path)
                }
            case "format":
                guard encoding == nil, elements.isEmpty, tokens.count == 3 else { throw bad("misplaced or malformed format line") }
                switch tokens[1] {
                case "ascii": encoding = (.ascii, false)
                case "binary_little_endian": encoding = (.binary, false)
                case "binary_big_endian": encoding = (.binary, true)
                default: throw bad("format '\(tokens[1])' is not ascii, binary_little_endian or binary_big_endian")
                }
            case "element":
                guard tokens.count == 3 else { throw bad("malformed element line") }
                let count = try HeaderCheck.count(tokens[2], "element \(tokens[1])", path: path)
                elements.append(Element(name: tokens[1], count: count))
            case "property":
                guard !elements.isEmpty else { throw bad("property before any element") }
                try addProperty(tokens, to: &elements[elements.count - 1])
            case "end_header":
                guard let encoding else { throw bad("no format line") }
                var parsed = try finish(elements: elements, encoding: encoding.0, bigEndian: encoding.bigEndian,
                                        columns: columns, rows: rows, dataOffset: lines.offset)
                parsed.header.viewpoint = viewpoint
                return parsed
            default:
                throw bad("unknown header line '\(keyword)'")
            }
        }
        return nil
    }

    private func addProperty(_ tokens: [String], to element: inout Element) throws {
        if tokens.count == 5, tokens[1] == "list" {
            guard let countSize = Self.typeSizes[tokens[2]], !tokens[2].hasPrefix("float"), tokens[2] != "double",
                  Self.typeSizes[tokens[3]] != nil else {
                throw bad("property list '\(tokens[2]) \(tokens[3])' has an unknown type")
            }
            element.properties.append(tokens[4])
            element.minimumRowBytes += countSize
            element.minimumRowValues += 1
        } else if tokens.count == 3 {
            guard let size = Self.typeSizes[tokens[1]] else { throw bad("property type '\(tokens[1])' is unknown") }
            element.properties.append(tokens[2])
            element.scalarProperties.insert(tokens[2])
            element.minimumRowBytes += size
            element.minimumRowValues += 1
        } else {
            throw bad("malformed property line '\(tokens.joined(separator: " "))'")
        }
    }

    private func finish(elements: [Element], encoding: CloudFileFormat.PLYEncoding, bigEndian: Bool,
                        columns: Int, rows: Int, dataOffset: Int) throws -> Parsed {
        guard let vertex = elements.first(where: { $0.name == "vertex" }) else { throw bad("no element vertex") }
        for axis in ["x", "y", "z"] where !vertex.scalarProperties.contains(axis) {
            throw bad("element vertex has no \(axis) property")
        }
        // The least data the elements can take: every count is capped at 2^31 and a row at
        // 8 bytes per property, so only a header with very many properties overflows.
        var minimumBytes = 0
        for element in elements {
            let row = encoding == .ascii ? 2 * element.minimumRowValues : element.minimumRowBytes
            guard let total = HeaderCheck.product(element.count, row, plus: minimumBytes) else {
                throw bad("element \(element.name) \(element.count) needs more data than any file holds")
            }
            minimumBytes = total
        }
        if encoding == .ascii, minimumBytes > 0 { minimumBytes -= 1 }  // the last newline is optional

        // PCL's grid: both obj_info dimensions or neither; with both, a range_grid element maps
        // every cell to a vertex (an organized cloud), without one the cells are the vertices.
        let grid = elements.first(where: { $0.name == "range_grid" })
        var width = vertex.count
        var height = 1
        if columns > 0, rows > 0 {
            guard let cells = HeaderCheck.product(columns, rows), cells <= HeaderCheck.maxPoints else {
                throw bad("obj_info num_cols x num_rows (\(columns) x \(rows)) is more than cloudgen reads (at most \(HeaderCheck.maxPoints) points)")
            }
            let expected = grid?.count ?? vertex.count
            guard cells == expected else {
                throw bad("obj_info num_cols x num_rows (\(columns) x \(rows)) disagrees with element \(grid == nil ? "vertex" : "range_grid") \(expected)")
            }
            width = columns
            height = rows
        } else if let grid {
            throw bad("element range_grid \(grid.count) without obj_info num_cols and num_rows")
        }
        let header = CloudFileHeader(format: .ply(encoding), isBigEndian: bigEndian, fields: vertex.properties,
                                     pointCount: width * height, width: width, height: height,
                                     dataOffset: dataOffset, dataLength: nil)
        return Parsed(header: header, minimumBytes: minimumBytes)
    }

    /// A header whose data has not been looked at yet.
    struct Parsed {
        var header: CloudFileHeader
        /// The least data the declared elements can take (all lists empty).
        var minimumBytes: Int

        func checkData(_ file: InputFile) throws -> CloudFileHeader {
            let available = file.size - header.dataOffset
            guard available >= minimumBytes else {
                throw CloudError.badInput("\(file.path): truncated: the header's elements need at least \(minimumBytes) bytes of data, the file holds \(available) after the header")
            }
            return header
        }
    }

    private func bad(_ problem: String) -> CloudError {
        CloudError.badInput("\(path): \(problem)")
    }
}
