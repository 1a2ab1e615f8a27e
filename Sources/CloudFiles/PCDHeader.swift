import CloudCore

/// A PCD header (v.5 to v0.7), parsed the way PCL's PCDReader reads it (whitespace-separated
/// tokens; SIZE before TYPE before COUNT; HEIGHT defaults to 1) but strictly: an unknown line, a
/// count PCL would wrap, a repeated field name or disagreeing field lists is an error here.
struct PCDHeader {
    struct Field {
        var name: String
        var type: ScalarType
        var count: Int
        /// Byte offset in a binary record.
        var offset: Int
        var bytes: Int { type.size * count }
    }

    enum Encoding { case ascii, binary, compressed }

    var fields: [Field]
    var width: Int
    var height: Int
    var points: Int
    var viewpoint: Pose?
    var relativeUnits: Bool
    var encoding: Encoding
    var dataOffset: Int
    /// Bytes of one binary record.
    var pointStep: Int
    /// Numbers on one ascii line.
    var valuesPerPoint: Int

    func field(_ name: String) -> Field? { fields.first { $0.name == name } }
}

struct PCDHeaderParser {
    let path: String

    /// The header, or nil when `bytes` end before its DATA line.
    func parse(_ bytes: UnsafeRawBufferPointer, atEnd: Bool) throws -> PCDHeader? {
        var lines = HeaderLines(bytes, atEnd: atEnd)
        var sawKeyword = false
        var names: [String]?
        var sizes: [Int]?
        var types: [UInt8]?
        var counts: [Int]?
        var width: Int?
        var height: Int?
        var points: Int?
        var viewpoint: Pose?
        var relativeUnits = false
        while let tokens = lines.next() {
            // Comments, but for cloudgen's record of distances without a known scale.
            if tokens == ["#", "cloudgen", "units", "relative"] { relativeUnits = true }
            guard let keyword = tokens.first, !keyword.hasPrefix("#") else { continue }
            let values = Array(tokens.dropFirst())
            if !sawKeyword, !["VERSION", "FIELDS", "COLUMNS"].contains(keyword) {
                throw CloudError.badInput(.file(path), "not a PCD or PLY file (it starts with neither 'ply' nor a PCD header)")
            }
            sawKeyword = true
            switch keyword {
            case "VERSION":
                continue
            case "FIELDS", "COLUMNS":
                guard names == nil else { throw bad("FIELDS given twice") }
                guard !values.isEmpty else { throw bad("FIELDS lists no fields") }
                // PCL pads records with fields named "_"; any other name twice is a lie about the data.
                var seen = Set<String>()
                for name in values where name != "_" {
                    guard seen.insert(name).inserted else { throw bad("FIELDS names \(name.prefix(40)) twice") }
                }
                names = values
            case "SIZE":
                guard let names else { throw bad("SIZE comes before FIELDS") }
                try requireSameCount(values, "SIZE", names)
                sizes = try values.map { try CloudFileLimits.count($0, "SIZE", path: path, limit: 8) }
            case "TYPE":
                guard let names, sizes != nil else { throw bad("TYPE comes before FIELDS and SIZE") }
                try requireSameCount(values, "TYPE", names)
                types = try values.map { token in
                    guard token.utf8.count == 1, let type = token.uppercased().utf8.first, "FIU".utf8.contains(type) else {
                        throw bad("TYPE '\(token.prefix(20))' is not one of F I U")
                    }
                    return type
                }
            case "COUNT":
                guard let names, sizes != nil, types != nil else { throw bad("COUNT comes before FIELDS, SIZE and TYPE") }
                try requireSameCount(values, "COUNT", names)
                counts = try values.map { try CloudFileLimits.count($0, "COUNT", path: path, limit: 1 << 20) }
            case "WIDTH":
                width = try CloudFileLimits.count(single(values, keyword), "WIDTH", path: path)
            case "HEIGHT":
                height = try CloudFileLimits.count(single(values, keyword), "HEIGHT", path: path)
            case "POINTS":
                points = try CloudFileLimits.count(single(values, keyword), "POINTS", path: path)
            case "VIEWPOINT":
                guard values.count == 7, let pose = Pose(viewpoint: values.compactMap { Double($0) }) else {
                    throw bad("VIEWPOINT needs 7 finite numbers (tx ty tz qw qx qy qz, a non-zero quaternion)")
                }
                if let problem = pose.placementProblem { throw bad("VIEWPOINT (where the camera stood): \(problem)") }
                viewpoint = pose == .identity ? nil : pose
            case "DATA":
                let encoding: PCDHeader.Encoding
                switch try single(values, keyword) {
                case "ascii": encoding = .ascii
                case "binary": encoding = .binary
                case "binary_compressed": encoding = .compressed
                case let other: throw bad("DATA '\(other.prefix(40))' is not ascii, binary or binary_compressed")
                }
                return try finish(
                    names: names, sizes: sizes, types: types, counts: counts, width: width, height: height,
                    points: points, viewpoint: viewpoint, relativeUnits: relativeUnits, encoding: encoding,
                    dataOffset: lines.offset)
            default:
                throw bad("unknown header line '\(keyword.prefix(40))'")
            }
        }
        if !sawKeyword, atEnd {
            throw CloudError.badInput(.file(path), "not a PCD or PLY file (no header)")
        }
        return nil
    }

    private func finish(
        names: [String]?, sizes: [Int]?, types: [UInt8]?, counts: [Int]?, width: Int?, height: Int?,
        points: Int?, viewpoint: Pose?, relativeUnits: Bool, encoding: PCDHeader.Encoding,
        dataOffset: Int
    ) throws -> PCDHeader {
        guard let names else { throw bad("no FIELDS line") }
        guard let sizes else { throw bad("no SIZE line") }
        guard let types else { throw bad("no TYPE line") }
        let counts = counts ?? Array(repeating: 1, count: names.count)
        guard let points else { throw bad("no POINTS line") }
        var fields: [PCDHeader.Field] = []
        var step = 0
        var values = 0
        for (index, name) in names.enumerated() {
            guard let type = ScalarType(pcdType: types[index], size: sizes[index]) else {
                throw bad(
                    "field \(name.prefix(40)) has TYPE \(Character(Unicode.Scalar(types[index]))) with SIZE \(sizes[index]), which no PCD reader reads"
                )
            }
            guard counts[index] >= 1 else { throw bad("field \(name.prefix(40)) has COUNT 0") }
            fields.append(.init(name: name, type: type, count: counts[index], offset: step))
            // Sizes are at most 8 and COUNTs at most 2^20, but a long header may list many fields.
            guard let s = CloudFileLimits.product(sizes[index], counts[index], plus: step),
                let v = CloudFileLimits.product(1, counts[index], plus: values)
            else {
                throw bad("the fields' SIZE x COUNT overflow")
            }
            step = s
            values = v
        }
        for axis in ["x", "y", "z"] {
            guard let field = fields.first(where: { $0.name == axis }) else {
                throw bad("no \(axis) field (FIELDS \(names.joined(separator: " ").prefix(80)))")
            }
            guard field.count == 1 else { throw bad("field \(axis) has COUNT \(field.count), not 1") }
        }
        for name in ["rgb", "rgba"] {
            if let field = fields.first(where: { $0.name == name }), field.count != 1 || field.type.size != 4 {
                throw bad("field \(name) must be one 4-byte value (packed 0xAARRGGBB), not COUNT \(field.count) of SIZE \(field.type.size)")
            }
        }
        // PCL's rule: no WIDTH and no HEIGHT means one row of POINTS; HEIGHT alone is an error.
        let rows = height ?? 1
        guard let columns = width ?? (height == nil ? points : nil) else { throw bad("HEIGHT given but no WIDTH") }
        guard let cells = CloudFileLimits.product(columns, rows), cells == points else {
            throw bad("POINTS \(points) is not WIDTH x HEIGHT (\(columns) x \(rows))")
        }
        return PCDHeader(
            fields: fields, width: columns, height: rows, points: points, viewpoint: viewpoint,
            relativeUnits: relativeUnits, encoding: encoding,
            dataOffset: dataOffset, pointStep: step, valuesPerPoint: values)
    }

    private func requireSameCount(_ values: [String], _ keyword: String, _ fields: [String]) throws {
        guard values.count == fields.count else {
            throw bad("\(keyword) has \(values.count) entries but FIELDS has \(fields.count)")
        }
    }

    private func single(_ values: [String], _ keyword: String) throws -> String {
        guard values.count == 1 else { throw bad("\(keyword) needs exactly one value") }
        return values[0]
    }

    private func bad(_ problem: String) -> CloudError {
        CloudError.badInput(.file(path), "\(problem)")
    }
}
