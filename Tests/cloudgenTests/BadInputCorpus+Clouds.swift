import Foundation

/// Lying, truncated and hostile PLY and PCD files: every class of lie a header can tell (list counts
/// negative or huge, range_grid indices out of range, ascii values that are not numbers, repeated
/// PCD fields, extra columns) and the rest of each format's header and body. Each file is tried
/// with one of info, convert and render in turn, the last two over an output that must survive.
extension BadInputCorpus {
    static let clouds: [BadInput] = cloudFiles.enumerated().map { index, entry in
        let (name, bytes) = entry
        let file = "bad-\(index).\(bytes.starts(with: Array("ply".utf8)) ? "ply" : "pcd")"
        let keep = Array("an earlier result\n".utf8)
        switch index % 3 {
        case 0:
            return BadInput(
                name: name, files: [file: bytes], arguments: ["info", "{dir}/\(file)"], expect: .badInput,
                names: "{dir}/\(file)")
        case 1:
            return BadInput(
                name: name, files: [file: bytes], arguments: ["convert", "{dir}/\(file)", "--pcd", "{dir}/out.pcd"],
                expect: .badInput, names: "{dir}/\(file)", existing: ["out.pcd": keep])
        default:
            return BadInput(
                name: name, files: [file: bytes], arguments: ["render", "{dir}/\(file)", "--out", "{dir}/out.png"],
                expect: .badInput, names: "{dir}/\(file)", existing: ["out.png": keep])
        }
    }

    /// Well-formed clouds too large for the corpus's 4 GiB address space: 400 million points of
    /// zeros in a sparse file (nothing is written to disk), refused before anything is allocated.
    static let cloudsTooLarge: [BadInput] = [
        (
            "huge.ply",
            "ply\nformat binary_little_endian 1.0\nelement vertex 400000000\nproperty float x\nproperty float y\nproperty float z\nend_header\n"
        ),
        (
            "huge.pcd",
            "VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH 400000000\nHEIGHT 1\nPOINTS 400000000\nDATA binary\n"
        )
    ].map { name, header in
        BadInput(
            name: "a well-formed \(name) of 400 million points", arguments: ["info", "{dir}/\(name)"], expect: .badInput,
            names: "{dir}/\(name): needs about 4.5 GiB of memory for a cloud of 400000000 points",
            prepare: { dir in
                let url = dir.appendingPathComponent(name)
                try Data(header.utf8).write(to: url)
                let handle = try FileHandle(forWritingTo: url)
                try handle.truncate(atOffset: UInt64(header.utf8.count) + 400_000_000 * 12)
                try handle.close()
            })
    }

    /// A cloud that reads fine but whose filter would pass the 4 GiB address space: 20 million
    /// points (a sparse file of zeros) through --normals, which takes about 230 bytes a point.
    static let cloudsTooLargeToFilter: [BadInput] = [
        BadInput(
            name: "normals of 20 million points under 4 GiB",
            arguments: ["convert", "{dir}/big.ply", "--normals", "--ply", "{dir}/out.ply"],
            expect: .badInput, names: "--normals 0.05: needs about 4.3 GiB of memory for normals on 20000000 points",
            existing: ["out.ply": Array("an earlier result\n".utf8)],
            prepare: { dir in
                let header =
                    "ply\nformat binary_little_endian 1.0\nelement vertex 20000000\nproperty float x\nproperty float y\nproperty float z\nend_header\n"
                let url = dir.appendingPathComponent("big.ply")
                try Data(header.utf8).write(to: url)
                let handle = try FileHandle(forWritingTo: url)
                try handle.truncate(atOffset: UInt64(header.utf8.count) + 20_000_000 * 12)
                try handle.close()
            })
    ]

    /// (what is wrong, the file's bytes)
    private static var cloudFiles: [(String, [UInt8])] {
        var cases: [(String, [UInt8])] = []
        func add(_ name: String, _ bytes: [UInt8]) { cases.append((name, bytes)) }

        // PLY headers.
        let xyz = "property float x\nproperty float y\nproperty float z\n"
        func ply(_ header: String, _ body: [UInt8] = floats([1, 2, 3])) -> [UInt8] { Array(header.utf8) + body }
        add("PLY: first line is not 'ply'", ply("plx\nformat binary_little_endian 1.0\nelement vertex 1\n\(xyz)end_header\n"))
        add("PLY: no format line", ply("ply\nelement vertex 1\n\(xyz)end_header\n"))
        add("PLY: unknown format", ply("ply\nformat binary_middle_endian 1.0\nelement vertex 1\n\(xyz)end_header\n"))
        add("PLY: version 2.0", ply("ply\nformat binary_little_endian 2.0\nelement vertex 1\n\(xyz)end_header\n"))
        add("PLY: negative element count", ply("ply\nformat binary_little_endian 1.0\nelement vertex -1\n\(xyz)end_header\n"))
        add("PLY: element count 2^31 + 1", ply("ply\nformat binary_little_endian 1.0\nelement vertex 2147483649\n\(xyz)end_header\n"))
        add(
            "PLY: element count past 2^64",
            ply("ply\nformat binary_little_endian 1.0\nelement vertex 99999999999999999999999\n\(xyz)end_header\n"))
        add(
            "PLY: 2^31 - 1 vertices claimed, 12 bytes there",
            ply("ply\nformat binary_little_endian 1.0\nelement vertex 2147483647\n\(xyz)end_header\n"))
        add(
            "PLY: unknown property type",
            ply(
                "ply\nformat binary_little_endian 1.0\nelement vertex 1\nproperty float16 x\nproperty float y\nproperty float z\nend_header\n"
            ))
        add("PLY: property before any element", ply("ply\nformat binary_little_endian 1.0\n\(xyz)element vertex 1\nend_header\n"))
        add(
            "PLY: list counted by a float",
            ply(
                "ply\nformat binary_little_endian 1.0\nelement vertex 1\n\(xyz)element face 1\nproperty list float int vertex_indices\nend_header\n"
            ))
        add(
            "PLY: no z property",
            ply("ply\nformat binary_little_endian 1.0\nelement vertex 1\nproperty float x\nproperty float y\nend_header\n"))
        add(
            "PLY: x is a list",
            ply(
                "ply\nformat binary_little_endian 1.0\nelement vertex 1\nproperty list uchar float x\nproperty float y\nproperty float z\nend_header\n"
            ))
        add(
            "PLY: property declared twice",
            ply("ply\nformat binary_little_endian 1.0\nelement vertex 1\n\(xyz)property float x\nend_header\n"))
        add(
            "PLY: element declared twice",
            ply("ply\nformat binary_little_endian 1.0\nelement vertex 1\n\(xyz)element vertex 1\n\(xyz)end_header\n"))
        add("PLY: header never ends", ply("ply\nformat binary_little_endian 1.0\nelement vertex 1\n\(xyz)", []))
        add("PLY: no vertex element", ply("ply\nformat binary_little_endian 1.0\nelement point 1\n\(xyz)end_header\n"))
        add(
            "PLY: num_cols without num_rows",
            ply("ply\nformat binary_little_endian 1.0\nobj_info num_cols 1\nelement vertex 1\n\(xyz)end_header\n"))
        add(
            "PLY: obj_info grid disagrees with the vertices",
            ply("ply\nformat binary_little_endian 1.0\nobj_info num_cols 640\nobj_info num_rows 480\nelement vertex 1\n\(xyz)end_header\n"))
        add(
            "PLY: obj_info grid of 2^62 cells",
            ply(
                "ply\nformat binary_little_endian 1.0\nobj_info num_cols 2147483648\nobj_info num_rows 2147483648\nelement vertex 1\n\(xyz)end_header\n"
            ))
        add(
            "PLY: range_grid without obj_info",
            ply(
                "ply\nformat binary_little_endian 1.0\nelement vertex 1\n\(xyz)element range_grid 1\nproperty list uchar int vertex_indices\nend_header\n",
                floats([1, 2, 3]) + [1, 0, 0, 0, 0]))
        add(
            "PLY: viewpoint comment with nan",
            ply("ply\nformat binary_little_endian 1.0\ncomment cloudgen viewpoint 0 0 nan 1 0 0 0\nelement vertex 1\n\(xyz)end_header\n"))
        add(
            "PLY: unknown header keyword",
            ply("ply\nformat binary_little_endian 1.0\nelement vertex 1\n\(xyz)texture foo.png\nend_header\n"))

        // PLY bodies, binary.
        let header1 = "ply\nformat binary_little_endian 1.0\nelement vertex 2\n\(xyz)"
        let twoPoints = floats([1, 2, 3, 4, 5, 6])
        add("PLY: vertex data cut mid-record", ply(header1 + "end_header\n", Array(twoPoints.prefix(17))))
        add("PLY: bytes after the last element", ply(header1 + "end_header\n", twoPoints + [0, 0, 0, 0]))
        func face(_ countType: String, _ count: [UInt8]) -> [UInt8] {
            ply(header1 + "element face 1\nproperty list \(countType) int vertex_indices\nend_header\n", twoPoints + count + [0, 0, 0, 0])
        }
        add("PLY: face list count -1 (char)", face("char", [0xFF]))
        add("PLY: face list count 2^31 - 1 (int)", face("int", [0xFF, 0xFF, 0xFF, 0x7F]))
        add("PLY: face list count 2^32 - 1 (uint)", face("uint", [0xFF, 0xFF, 0xFF, 0xFF]))
        add("PLY: face list count -2^31 (int)", face("int", [0, 0, 0, 0x80]))
        add("PLY: face list longer than the file (ushort 65535)", face("ushort", [0xFF, 0xFF]))
        add(
            "PLY: vertex list count 200 with 4 bytes left",
            ply(
                "ply\nformat binary_little_endian 1.0\nelement vertex 1\n\(xyz)property list uchar int extra\nend_header\n",
                floats([1, 2, 3]) + [200, 0, 0, 0, 0]))
        func grid(_ cells: [[Int32]], vertices: Int = 2) -> [UInt8] {
            var body = floats((0..<(3 * vertices)).map { Float($0) })
            for cell in cells {
                body.append(UInt8(cell.count))
                for index in cell { body += withUnsafeBytes(of: index.littleEndian) { Array($0) } }
            }
            return ply(
                "ply\nformat binary_little_endian 1.0\nobj_info num_cols 2\nobj_info num_rows 2\nelement vertex \(vertices)\n\(xyz)element range_grid 4\nproperty list uchar int vertex_indices\nend_header\n",
                body)
        }
        add("PLY: range_grid index -1", grid([[0], [-1], [], [1]]))
        add("PLY: range_grid index equal to the vertex count", grid([[0], [2], [], [1]]))
        add("PLY: range_grid index 2^31 - 1", grid([[0], [Int32.max], [], [1]]))
        add("PLY: range_grid cell with two vertices", grid([[0, 1], [], [], []]))
        add("PLY: range_grid places one vertex twice", grid([[0], [0], [], [1]]))
        add("PLY: range_grid leaves a vertex out", grid([[0], [], [], []]))
        add(
            "PLY: big-endian vertex data cut short",
            ply("ply\nformat binary_big_endian 1.0\nelement vertex 3\n\(xyz)end_header\n", Array(twoPoints.prefix(20))))

        // PLY bodies, ascii.
        let asciiHeader =
            "ply\nformat ascii 1.0\nelement vertex 2\n\(xyz)property uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n"
        func asciiPLY(_ lines: String) -> [UInt8] { Array((asciiHeader + lines).utf8) }
        add("PLY ascii: a value that is not a number", asciiPLY("1 2 abc 0 0 0\n4 5 6 0 0 0\n"))
        add("PLY ascii: a number with junk after it", asciiPLY("1 2 1.5x 0 0 0\n4 5 6 0 0 0\n"))
        add("PLY ascii: more values than properties", asciiPLY("1 2 3 0 0 0 9\n4 5 6 0 0 0\n"))
        add("PLY ascii: fewer values than properties", asciiPLY("1 2 3 0 0\n4 5 6 0 0 0\n"))
        add("PLY ascii: uchar 256", asciiPLY("1 2 3 256 0 0\n4 5 6 0 0 0\n"))
        add("PLY ascii: uchar -1", asciiPLY("1 2 3 -1 0 0\n4 5 6 0 0 0\n"))
        add("PLY ascii: a fraction in a uchar", asciiPLY("1 2 3 0.5 0 0\n4 5 6 0 0 0\n"))
        add("PLY ascii: fewer lines than vertices", asciiPLY("1 2 3 0 0 0\n"))
        add("PLY ascii: a line after the last element", asciiPLY("1 2 3 0 0 0\n4 5 6 0 0 0\n7 8 9 0 0 0\n"))
        add("PLY ascii: hexadecimal float", asciiPLY("0x1p3 2 3 0 0 0\n4 5 6 0 0 0\n"))
        let asciiFaces =
            "ply\nformat ascii 1.0\nelement vertex 1\n\(xyz)element face 1\nproperty list uchar int vertex_indices\nend_header\n1 2 3\n"
        add("PLY ascii: face list count -3", Array((asciiFaces + "-3 0 0 0\n").utf8))
        add("PLY ascii: face list count 255 on a short line", Array((asciiFaces + "255 0 0 0\n").utf8))
        add("PLY ascii: face list count 2^32", Array((asciiFaces + "4294967296 0 0 0\n").utf8))
        add(
            "PLY ascii: camera viewport disagreeing with the points",
            Array(
                "ply\nformat ascii 1.0\nelement vertex 2\n\(xyz)element camera 1\nproperty int viewportx\nproperty int viewporty\nend_header\n1 2 3\n4 5 6\n1000 1000\n"
                    .utf8))
        add("PLY ascii: a 2 MB line", asciiPLY("1 2 3 0 0 0" + String(repeating: " ", count: 2 << 20) + "\n4 5 6 0 0 0\n"))

        // PCD headers.
        func pcd(
            fields: String = "x y z", size: String = "4 4 4", type: String = "F F F", count: String = "1 1 1",
            width: String = "1", height: String = "1", points: String = "1", data: String = "binary", extra: String = ""
        ) -> String {
            "# .PCD v0.7\nVERSION 0.7\nFIELDS \(fields)\nSIZE \(size)\nTYPE \(type)\nCOUNT \(count)\n\(extra)WIDTH \(width)\nHEIGHT \(height)\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS \(points)\nDATA \(data)\n"
        }
        func file(_ header: String, _ body: [UInt8] = floats([1, 2, 3])) -> [UInt8] { Array(header.utf8) + body }
        add("PCD: neither PCD nor PLY", Array("hello, I am not a cloud\n".utf8))
        add("PCD: empty file", [])
        add(
            "PCD: a field named twice",
            file(pcd(fields: "x y z x", size: "4 4 4 4", type: "F F F F", count: "1 1 1 1"), floats([1, 2, 3, 4])))
        add("PCD: SIZE has fewer entries than FIELDS", file(pcd(size: "4 4")))
        add("PCD: TYPE D", file(pcd(type: "F F D")))
        add("PCD: TYPE F with SIZE 2", file(pcd(size: "4 4 2")))
        add("PCD: COUNT 0", file(pcd(fields: "x y z i", size: "4 4 4 4", type: "F F F F", count: "1 1 1 0")))
        add("PCD: WIDTH x HEIGHT is not POINTS", file(pcd(width: "2", height: "2", points: "1")))
        add("PCD: POINTS -1", file(pcd(width: "1", points: "-1")))
        add("PCD: POINTS 2^40", file(pcd(width: "1099511627776", points: "1099511627776")))
        add("PCD: VIEWPOINT with nan", file(pcd().replacingOccurrences(of: "VIEWPOINT 0 0 0 1 0 0 0", with: "VIEWPOINT 0 nan 0 1 0 0 0")))
        add("PCD: DATA binary_lzma", file(pcd(data: "binary_lzma")))
        add("PCD: no x field", file(pcd(fields: "a y z")))
        add("PCD: x with COUNT 2", file(pcd(count: "2 1 1"), floats([1, 2, 3, 4])))
        add(
            "PCD: rgb of 2 bytes",
            file(pcd(fields: "x y z rgb", size: "4 4 4 2", type: "F F F U", count: "1 1 1 1"), floats([1, 2, 3]) + [0, 0]))
        add("PCD: unknown header line", file(pcd(extra: "COLOUR red\n")))
        add("PCD: no DATA line", Array(pcd().replacingOccurrences(of: "DATA binary\n", with: "").utf8))

        // PCD bodies.
        add("PCD binary: cut mid-record", file(pcd(width: "2", points: "2"), Array(floats([1, 2, 3, 4, 5, 6]).prefix(20))))
        add("PCD binary: 10^8 points claimed, one there", file(pcd(width: "100000000", points: "100000000")))
        func compressed(_ sizes: (UInt32, UInt32), _ block: [UInt8]) -> [UInt8] {
            file(
                pcd(data: "binary_compressed"),
                withUnsafeBytes(of: sizes.0.littleEndian) { Array($0) } + withUnsafeBytes(of: sizes.1.littleEndian) { Array($0) } + block)
        }
        add("PCD compressed: unpacked size is not POINTS x 12", compressed((13, 24), [11] + floats([1, 2, 3])))
        add(
            "PCD compressed: a 1 KB block claiming 1.2 GB",
            Array(pcd(width: "100000000", points: "100000000", data: "binary_compressed").utf8)
                + withUnsafeBytes(of: UInt32(1000).littleEndian) { Array($0) }
                + withUnsafeBytes(of: UInt32(1_200_000_000).littleEndian) { Array($0) }
                + [UInt8](repeating: 0, count: 1000))
        add("PCD compressed: block cut short", compressed((13, 12), [11] + floats([1, 2])))
        add("PCD compressed: back reference before the start", compressed((3, 12), [0x20, 0x00, 0x00]))
        add("PCD compressed: unpacks to less than it says", compressed((9, 12), [7] + floats([1, 2])))
        add("PCD compressed: no size prefix", file(pcd(data: "binary_compressed"), [1, 2, 3]))
        add("PCD compressed: compressed size 0", compressed((0, 12), []))
        let asciiPCD = pcd(fields: "x y z rgb", size: "4 4 4 4", type: "F F F U", count: "1 1 1 1", width: "2", points: "2", data: "ascii")
        add("PCD ascii: a value that is not a number", file(asciiPCD, Array("1 2 abc 0\n4 5 6 0\n".utf8)))
        add("PCD ascii: more columns than FIELDS", file(asciiPCD, Array("1 2 3 0 7\n4 5 6 0\n".utf8)))
        add("PCD ascii: fewer columns than FIELDS", file(asciiPCD, Array("1 2 3\n4 5 6 0\n".utf8)))
        add("PCD ascii: more lines than POINTS", file(asciiPCD, Array("1 2 3 0\n4 5 6 0\n7 8 9 0\n".utf8)))
        add("PCD ascii: fewer lines than POINTS", file(asciiPCD, Array("1 2 3 0\n".utf8)))
        add("PCD ascii: a negative unsigned color", file(asciiPCD, Array("1 2 3 -5\n4 5 6 0\n".utf8)))
        add("PCD ascii: a fraction in an unsigned field", file(asciiPCD, Array("1 2 3 1.5\n4 5 6 0\n".utf8)))
        add("PCD ascii: a color past 2^32", file(asciiPCD, Array("1 2 3 4294967296\n4 5 6 0\n".utf8)))
        add("PCD ascii: a NUL byte in a value", file(asciiPCD, Array("1 2 3\u{0}4 0\n4 5 6 0\n".utf8)))
        return cases
    }
}

/// Little-endian float32 bytes.
private func floats(_ values: [Float]) -> [UInt8] {
    values.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian) { Array($0) } }
}
