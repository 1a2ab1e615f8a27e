import CloudCore
import CloudIO

/// The PCD half of HeaderCheck: PCD v.5 to v0.7 headers, parsed the way PCL's PCDReader reads them
/// (whitespace-separated tokens; SIZE before TYPE before COUNT; HEIGHT defaults to 1) but strictly:
/// an unknown line, a count PCL would wrap, or disagreeing field lists is an error here.
struct PCDHeaderParser {
    let path: String

    /// The parsed header, or nil when `bytes` end before its DATA line.
    func parse(_ bytes: [UInt8], atEnd: Bool) throws -> Parsed? {
        var lines = HeaderLines(bytes, atEnd: atEnd)
        var sawKeyword = false
        var fields: [String]?
        var sizes: [Int]?
        var types: [UInt8]?
        var counts: [Int]?
        var width: Int?
        var height: Int?
        var points: Int?
        var viewpoint: Pose?
        while let tokens = lines.next() {
            guard let keyword = tokens.first, !keyword.hasPrefix("#") else { continue }
            let values = Array(tokens.dropFirst())
            if !sawKeyword, !["VERSION", "FIELDS", "COLUMNS"].contains(keyword) {
                throw CloudError.badInput("\(path): not a PCD or PLY file (it starts with neither 'ply' nor a PCD header)")
            }
            sawKeyword = true
            switch keyword {
            case "VERSION":
                continue
            case "FIELDS", "COLUMNS":
                guard !values.isEmpty else { throw bad("FIELDS lists no fields") }
                fields = values
            case "SIZE":
                guard let fields else { throw bad("SIZE comes before FIELDS") }
                try requireSameCount(values, "SIZE", fields)
                sizes = try values.map { try HeaderCheck.count($0, "SIZE", path: path, limit: 8) }
            case "TYPE":
                guard let fields, sizes != nil else { throw bad("TYPE comes before FIELDS and SIZE") }
                try requireSameCount(values, "TYPE", fields)
                types = try values.map { token in
                    guard token.utf8.count == 1, let type = token.uppercased().utf8.first, "FIUB".utf8.contains(type) else {
                        throw bad("TYPE '\(token)' is not one of F I U")
                    }
                    return type
                }
            case "COUNT":
                guard let fields, sizes != nil, types != nil else { throw bad("COUNT comes before FIELDS, SIZE and TYPE") }
                try requireSameCount(values, "COUNT", fields)
                counts = try values.map { try HeaderCheck.count($0, "COUNT", path: path, limit: 1 << 20) }
            case "WIDTH":
                width = try HeaderCheck.count(single(values, keyword), "WIDTH", path: path)
            case "HEIGHT":
                height = try HeaderCheck.count(single(values, keyword), "HEIGHT", path: path)
            case "POINTS":
                points = try HeaderCheck.count(single(values, keyword), "POINTS", path: path)
            case "VIEWPOINT":
                guard values.count == 7, let pose = Pose(viewpoint: values.compactMap { Double($0) }) else {
                    throw bad("VIEWPOINT needs 7 finite numbers (tx ty tz qw qx qy qz, a non-zero quaternion)")
                }
                viewpoint = pose == .identity ? nil : pose
            case "DATA":
                let encoding: CloudFileFormat.PCDEncoding
                switch try single(values, keyword) {
                case "ascii": encoding = .ascii
                case "binary": encoding = .binary
                case "binary_compressed": encoding = .compressed
                case let other: throw bad("DATA '\(other)' is not ascii, binary or binary_compressed")
                }
                var parsed = try finish(fields: fields, sizes: sizes, types: types, counts: counts, width: width,
                                        height: height, points: points, encoding: encoding, dataOffset: lines.offset)
                parsed.header.viewpoint = viewpoint
                return parsed
            default:
                throw bad("unknown header line '\(keyword)'")
            }
        }
        if !sawKeyword, atEnd {
            throw CloudError.badInput("\(path): not a PCD or PLY file (no header)")
        }
        return nil
    }

    private func finish(fields: [String]?, sizes: [Int]?, types: [UInt8]?, counts: [Int]?, width: Int?, height: Int?,
                        points: Int?, encoding: CloudFileFormat.PCDEncoding, dataOffset: Int) throws -> Parsed {
        guard let fields else { throw bad("no FIELDS line") }
        guard let sizes else { throw bad("no SIZE line") }
        guard let types else { throw bad("no TYPE line") }
        let counts = counts ?? Array(repeating: 1, count: fields.count)
        guard let points else { throw bad("no POINTS line") }
        for (index, name) in fields.enumerated() {
            let valid: Bool
            switch types[index] {
            case UInt8(ascii: "F"): valid = sizes[index] == 4 || sizes[index] == 8
            case UInt8(ascii: "B"): valid = sizes[index] == 1
            default: valid = [1, 2, 4, 8].contains(sizes[index])
            }
            guard valid else {
                throw bad("field \(name) has TYPE \(Character(Unicode.Scalar(types[index]))) with SIZE \(sizes[index]), which PCL cannot read")
            }
            guard counts[index] >= 1 else { throw bad("field \(name) has COUNT 0") }
        }
        for axis in ["x", "y", "z"] {
            guard let index = fields.firstIndex(of: axis) else { throw bad("no \(axis) field (FIELDS \(fields.joined(separator: " ")))") }
            guard counts[index] == 1 else { throw bad("field \(axis) has COUNT \(counts[index]), not 1") }
        }
        // PCL's rule: no WIDTH and no HEIGHT means one row of POINTS; HEIGHT alone is an error.
        let rows = height ?? 1
        guard let columns = width ?? (height == nil ? points : nil) else { throw bad("HEIGHT given but no WIDTH") }
        guard let cells = HeaderCheck.product(columns, rows), cells == points else {
            throw bad("POINTS \(points) is not WIDTH x HEIGHT (\(columns) x \(rows))")
        }
        // Sizes are at most 8 and COUNTs at most 2^20, but a long header may list many fields.
        var step = 0
        var values = 0
        for (size, count) in zip(sizes, counts) {
            guard let s = HeaderCheck.product(size, count, plus: step), let v = HeaderCheck.product(1, count, plus: values) else {
                throw bad("the fields' SIZE x COUNT overflow")
            }
            step = s
            values = v
        }
        let header = CloudFileHeader(format: .pcd(encoding), isBigEndian: false, fields: fields, pointCount: points,
                                     width: columns, height: rows, dataOffset: dataOffset, dataLength: nil)
        return Parsed(header: header, pointStep: step, valuesPerPoint: values)
    }

    /// A header whose data has not been looked at yet.
    struct Parsed {
        var header: CloudFileHeader
        var pointStep: Int
        var valuesPerPoint: Int

        /// Holds the data after the header against what the header claims.
        func checkData(_ file: InputFile) throws -> CloudFileHeader {
            guard case let .pcd(encoding) = header.format else { return header }
            let path = file.path
            var header = header
            let available = file.size - header.dataOffset
            let points = header.pointCount
            guard points > 0 else { return header }
            switch encoding {
            case .binary:
                guard let needed = HeaderCheck.product(points, pointStep), available >= needed else {
                    throw CloudError.badInput("\(path): truncated: the binary data holds \(available) bytes, the header needs \(points) points x \(pointStep) bytes")
                }
                header.dataLength = needed
            case .compressed:
                guard available >= 8 else {
                    throw CloudError.badInput("\(path): truncated: the binary_compressed data holds \(available) bytes, not even its 8-byte size prefix")
                }
                let prefix = try file.read(at: header.dataOffset, count: 8)
                let compressed = Int(littleEndianUInt32(prefix, at: 0))
                let uncompressed = Int(littleEndianUInt32(prefix, at: 4))
                guard uncompressed == HeaderCheck.product(points, pointStep) else {
                    throw CloudError.badInput("\(path): the binary_compressed data unpacks to \(uncompressed) bytes, not POINTS x point size (\(points) x \(pointStep))")
                }
                guard compressed > 0, 8 + compressed <= available else {
                    throw CloudError.badInput("\(path): truncated: the binary_compressed data needs \(8 + compressed) bytes, the file holds \(available) after the header")
                }
                // PCL reserves the uncompressed size (and a cloud of POINTS) before it decompresses:
                // a small block claiming gigabytes is refused here.
                guard LZF.canExpand(compressed, to: uncompressed) else {
                    throw CloudError.badInput("\(path): compressed block of \(compressed) bytes cannot unpack to \(uncompressed) bytes")
                }
                header.dataLength = 8 + compressed
            case .ascii:
                // Each value takes at least one character and one separator.
                guard let minimum = HeaderCheck.product(points, 2 * valuesPerPoint, plus: -1), available >= minimum else {
                    throw CloudError.badInput("\(path): truncated: \(available) bytes of ascii data cannot hold \(points) points of \(valuesPerPoint) values")
                }
                let lines = try PCDHeaderParser.countLines(file, from: header.dataOffset, upTo: points)
                guard lines >= points else {
                    throw CloudError.badInput("\(path): truncated: the ascii data has \(lines) lines, the header claims \(points) points")
                }
            }
            return header
        }
    }

    /// Non-blank lines from `offset`, counting no further than `limit`; streams through one
    /// reused buffer.
    static func countLines(_ file: InputFile, from offset: Int, upTo limit: Int) throws -> Int {
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var lines = 0
        var lineHasText = false
        var position = offset
        while position < file.size, lines < limit {
            let n = try file.read(at: position, into: buffer)
            guard n > 0 else { break }
            for byte in UnsafeRawBufferPointer(rebasing: buffer[..<n]) {
                if byte == 0x0A {
                    if lineHasText { lines += 1 }
                    lineHasText = false
                } else if byte != 0x20 && byte != 0x09 && byte != 0x0D {
                    lineHasText = true
                }
            }
            position += n
        }
        return lineHasText ? lines + 1 : lines
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
        CloudError.badInput("\(path): \(problem)")
    }
}

private func littleEndianUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
    (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
}
