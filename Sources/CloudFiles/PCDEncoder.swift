import CloudCore

/// PCD v0.7 with PCL's PCDWriter's header: FIELDS x y z [rgb] [normal_x normal_y normal_z
/// curvature], all 4-byte floats but rgb, PCL's packed 0x00RRGGBB (a float's bits in binary, an
/// unsigned integer in ascii, as PCL writes it). An unorganized cloud is one row of its finite
/// points; an organized one keeps WIDTH x HEIGHT, empty pixels as NaN points.
struct PCDEncoder {
    let layout: RecordLayout
    let encoding: CloudFileFormat.PCDEncoding

    private var points: Int { layout.recordCount }
    private var fieldCount: Int { 3 + (layout.hasColors ? 1 : 0) + (layout.hasNormals ? 4 : 0) }

    func write(to sink: FileSink, path: String) throws {
        try sink.append(header)
        switch encoding {
        case .binary: try layout.writeBinaryRecords(to: sink, packedColor: true)
        case .ascii: try layout.writeAsciiRecords(to: sink) { c, j in "\(packedColor(c, j))" }
        case .compressed: try writeCompressed(sink, path: path)
        }
    }

    private var header: String {
        let count = fieldCount
        var h = "# .PCD v0.7 - Point Cloud Data file format\n"
        if layout.relativeUnits { h += "# cloudgen units relative\n" }
        h += "VERSION 0.7\nFIELDS x y z"
        if layout.hasColors { h += " rgb" }
        if layout.hasNormals { h += " normal_x normal_y normal_z curvature" }
        h += "\nSIZE" + String(repeating: " 4", count: count)
        var types = [String](repeating: "F", count: count)
        if layout.hasColors && encoding == .ascii { types[3] = "U" }
        h += "\nTYPE " + types.joined(separator: " ")
        h += "\nCOUNT" + String(repeating: " 1", count: count)
        let width = layout.organized ? layout.cloud.organized!.width : points
        let height = layout.organized ? layout.cloud.organized!.height : 1
        h += "\nWIDTH \(width)\nHEIGHT \(height)\nVIEWPOINT \(layout.viewpointText)\nPOINTS \(points)\nDATA "
        switch encoding {
        case .ascii: h += "ascii\n"
        case .binary: h += "binary\n"
        case .compressed: h += "binary_compressed\n"
        }
        return h
    }

    /// binary_compressed: the fields one plane after another (all x, then all y, ...), LZF-
    /// compressed in independent pieces on every core, after two little-endian uint32: the
    /// compressed and the uncompressed size.
    private func writeCompressed(_ sink: FileSink, path: String) throws {
        let cloud = layout.cloud
        let n = points
        let planeCount = fieldCount
        guard 4 * planeCount * n <= Int(UInt32.max) else {
            throw CloudError.badInput(
                .file(path), "the cloud is more than 4 GiB of point data, more than PCD binary_compressed can store (PCD binary can)")
        }
        let planes = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: planeCount * n)
        HugePages.advise(UnsafeMutableRawPointer(planes.baseAddress!), count: 4 * planeCount * n)
        defer { planes.deallocate() }
        withChannels(cloud) { p, c, nrm, k in
            let out = planes.baseAddress!
            var slot = 0
            for j in 0..<cloud.count where layout.isWritten(p, j) {
                for axis in 0..<3 { out[axis * n + slot] = p[3 * j + axis].bitPattern }
                var plane = 3
                if let c {
                    out[3 * n + slot] = packedColor(c, j)
                    plane = 4
                }
                if let nrm {
                    for axis in 0..<3 { out[(plane + axis) * n + slot] = nrm[3 * j + axis].bitPattern }
                    out[(plane + 3) * n + slot] = (k?[j] ?? 0).bitPattern
                }
                slot += 1
            }
        }
        let pieces = LZF.compress(UnsafeRawBufferPointer(planes))
        let compressedBytes = pieces.reduce(0) { $0 + $1.count }
        guard compressedBytes <= Int(UInt32.max) else {
            throw CloudError.badInput(
                .file(path), "the point data does not compress below 4 GiB, the most PCD binary_compressed can store (PCD binary can)")
        }
        let sizes = [UInt32(compressedBytes).littleEndian, UInt32(4 * planeCount * n).littleEndian]
        try sizes.withUnsafeBytes { try sink.append($0) }
        for piece in pieces { try piece.withUnsafeBytes { try sink.append($0) } }
    }
}
