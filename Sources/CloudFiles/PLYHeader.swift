import CloudCore

/// A PLY header, parsed strictly: every element with its typed properties, the byte order, and
/// PCL's `obj_info num_cols / num_rows` grid. Counts are held against the file's size before
/// anything is read for them.
struct PLYHeader {
    struct Property {
        var name: String
        /// The value's type; for a list, its items' type.
        var type: ScalarType
        /// A list's count type (nil: a scalar property).
        var listCount: ScalarType?
    }

    struct Element {
        var name: String
        var count: Int
        var properties: [Property] = []

        /// Bytes of a row when no property is a list (binary), else nil.
        var fixedRowBytes: Int? {
            properties.contains { $0.listCount != nil } ? nil : properties.reduce(0) { $0 + $1.type.size }
        }

        /// Bytes of a row with every list empty (binary).
        var minimumRowBytes: Int { properties.reduce(0) { $0 + ($1.listCount ?? $1.type).size } }

        func index(of name: String) -> Int? { properties.firstIndex { $0.name == name } }
    }

    var ascii: Bool
    var bigEndian: Bool
    var elements: [Element]
    /// obj_info num_cols / num_rows (0 when absent).
    var columns: Int
    var rows: Int
    var viewpoint: Pose?
    var relativeUnits: Bool
    /// Offset of the first byte after end_header.
    var dataOffset: Int

    var vertexIndex: Int { elements.firstIndex { $0.name == "vertex" }! }
    var vertex: Element { elements[vertexIndex] }
    var rangeGridIndex: Int? { elements.firstIndex { $0.name == "range_grid" } }
}

/// Parses a PLY header from the first bytes of a file.
struct PLYHeaderParser {
    let path: String

    /// The header, or nil when `bytes` end before its end_header line.
    func parse(_ bytes: UnsafeRawBufferPointer, atEnd: Bool) throws -> PLYHeader? {
        var lines = HeaderLines(bytes, atEnd: atEnd)
        guard lines.next() == ["ply"] else { throw bad("not a PLY file (the first line is not 'ply')") }
        var encoding: (ascii: Bool, bigEndian: Bool)?
        var elements: [PLYHeader.Element] = []
        var columns = 0
        var rows = 0
        var viewpoint: Pose?
        var relativeUnits = false
        while let tokens = lines.next() {
            guard let keyword = tokens.first else { continue }
            switch keyword {
            case "comment":
                // Free text, but for cloudgen's record of where the camera stood (Pose.viewpoint)
                // and of distances without a known scale.
                if tokens.count == 4, tokens[1] == "cloudgen", tokens[2] == "units", tokens[3] == "relative" { relativeUnits = true }
                guard tokens.count >= 3, tokens[1] == "cloudgen", tokens[2] == "viewpoint" else { continue }
                guard tokens.count == 10, let pose = Pose(viewpoint: tokens[3...].compactMap { Double($0) }) else {
                    throw bad("comment cloudgen viewpoint needs 7 finite numbers (tx ty tz qw qx qy qz, a non-zero quaternion)")
                }
                if let problem = pose.placementProblem { throw bad("comment cloudgen viewpoint (where the camera stood): \(problem)") }
                viewpoint = pose == .identity ? nil : pose
            case "obj_info":
                // PCL reads these two as the cloud's grid; other obj_info lines are free text.
                if tokens.count >= 3, tokens[1] == "num_cols" {
                    columns = try CloudFileLimits.count(tokens[2], "obj_info num_cols", path: path)
                } else if tokens.count >= 3, tokens[1] == "num_rows" {
                    rows = try CloudFileLimits.count(tokens[2], "obj_info num_rows", path: path)
                }
            case "format":
                guard encoding == nil, elements.isEmpty, tokens.count == 3 else { throw bad("misplaced or malformed format line") }
                guard tokens[2] == "1.0" else { throw bad("PLY version '\(tokens[2].prefix(20))' is not 1.0") }
                switch tokens[1] {
                case "ascii": encoding = (true, false)
                case "binary_little_endian": encoding = (false, false)
                case "binary_big_endian": encoding = (false, true)
                default: throw bad("format '\(tokens[1].prefix(40))' is not ascii, binary_little_endian or binary_big_endian")
                }
            case "element":
                guard tokens.count == 3 else { throw bad("malformed element line") }
                guard !elements.contains(where: { $0.name == tokens[1] }) else {
                    throw bad("element \(tokens[1].prefix(40)) is declared twice")
                }
                let count = try CloudFileLimits.count(tokens[2], "element \(tokens[1].prefix(40))", path: path)
                elements.append(PLYHeader.Element(name: tokens[1], count: count))
            case "property":
                guard !elements.isEmpty else { throw bad("property before any element") }
                try addProperty(tokens, to: &elements[elements.count - 1])
            case "end_header":
                guard let encoding else { throw bad("no format line") }
                let header = PLYHeader(
                    ascii: encoding.ascii, bigEndian: encoding.bigEndian, elements: elements, columns: columns,
                    rows: rows, viewpoint: viewpoint, relativeUnits: relativeUnits, dataOffset: lines.offset)
                try validate(header)
                return header
            default:
                throw bad("unknown header line '\(keyword.prefix(40))'")
            }
        }
        return nil
    }

    private func addProperty(_ tokens: [String], to element: inout PLYHeader.Element) throws {
        let property: PLYHeader.Property
        if tokens.count == 5, tokens[1] == "list" {
            guard let countType = ScalarType(plyName: tokens[2]), countType.isInteger, let itemType = ScalarType(plyName: tokens[3]) else {
                throw bad(
                    "property list '\(tokens[2].prefix(20)) \(tokens[3].prefix(20))' has an unknown type (the count must be an integer type)"
                )
            }
            property = .init(name: tokens[4], type: itemType, listCount: countType)
        } else if tokens.count == 3 {
            guard let type = ScalarType(plyName: tokens[1]) else { throw bad("property type '\(tokens[1].prefix(20))' is unknown") }
            property = .init(name: tokens[2], type: type, listCount: nil)
        } else {
            throw bad("malformed property line '\(tokens.joined(separator: " ").prefix(60))'")
        }
        guard element.index(of: property.name) == nil else {
            throw bad("element \(element.name.prefix(40)) has property \(property.name.prefix(40)) twice")
        }
        element.properties.append(property)
    }

    /// The vertex element's coordinates, the grid, and the least data the elements need.
    private func validate(_ header: PLYHeader) throws {
        guard let vertex = header.elements.first(where: { $0.name == "vertex" }) else { throw bad("no element vertex") }
        for axis in ["x", "y", "z"] {
            guard let index = vertex.index(of: axis) else { throw bad("element vertex has no \(axis) property") }
            guard vertex.properties[index].listCount == nil else { throw bad("vertex property \(axis) is a list") }
        }
        // PCL's grid: both obj_info dimensions or neither; with both, a range_grid element maps
        // every cell to a vertex (an organized cloud), without one the cells are the vertices.
        let grid = header.elements.first { $0.name == "range_grid" }
        if header.columns > 0 || header.rows > 0 {
            guard header.columns > 0, header.rows > 0 else {
                throw bad("obj_info gives num_cols \(header.columns) and num_rows \(header.rows); a grid needs both")
            }
            guard let cells = CloudFileLimits.product(header.columns, header.rows), cells <= CloudFileLimits.maxPoints else {
                throw bad(
                    "obj_info num_cols x num_rows (\(header.columns) x \(header.rows)) is more than cloudgen reads (at most \(CloudFileLimits.maxPoints) points)"
                )
            }
            let expected = grid?.count ?? vertex.count
            guard cells == expected else {
                throw bad(
                    "obj_info num_cols x num_rows (\(header.columns) x \(header.rows)) disagrees with element \(grid == nil ? "vertex" : "range_grid") \(expected)"
                )
            }
        } else if let grid {
            throw bad("element range_grid \(grid.count) without obj_info num_cols and num_rows")
        }
        if let grid {
            guard grid.properties.count == 1, let list = grid.properties.first, list.listCount != nil, list.type.isInteger else {
                throw bad("element range_grid must hold one integer list property (vertex_indices)")
            }
        }
    }

    private func bad(_ problem: String) -> CloudError {
        CloudError.badInput(.file(path), "\(problem)")
    }
}
