import CloudCore

/// PLY as Docs/formats.md describes it: `ply`, the format, cloudgen's viewpoint comment, for an
/// organized cloud PCL's `obj_info num_cols / num_rows`, then `element vertex N` with x y z, uchar
/// red green blue, nx ny nz curvature. No `element camera` (some readers choke on it). An
/// unorganized cloud's vertices are its finite points; an organized cloud's are all its cells in
/// row order, empty ones as NaN points, which PCL reads back as the grid (num_cols x num_rows
/// equal to the vertices) and every other reader as the same W x H points, as they read an
/// organized PCD. (PCL's own alternative, a `range_grid` element of one list per cell, is read but
/// not written: lists of varying length break trimesh, and plyfile warns on the empty ones.)
struct PLYEncoder {
    let layout: RecordLayout
    let ascii: Bool

    func write(to sink: FileSink) throws {
        try sink.append(header)
        if ascii {
            try layout.writeAsciiRecords(to: sink) { c, j in "\(c[3 * j]) \(c[3 * j + 1]) \(c[3 * j + 2])" }
        } else {
            try layout.writeBinaryRecords(to: sink, packedColor: false)
        }
    }

    /// The size of the binary file `write` makes, without making it.
    var binaryBytes: Int {
        header.utf8.count + layout.recordCount * layout.binaryRecordBytes(packedColor: false)
    }

    private var header: String {
        var h = "ply\nformat \(ascii ? "ascii" : "binary_little_endian") 1.0\n"
        if layout.viewpoint != nil { h += "comment cloudgen viewpoint \(layout.viewpointText)\n" }
        if layout.relativeUnits { h += "comment cloudgen units relative\n" }
        if let grid = layout.cloud.organized, layout.organized {
            h += "obj_info num_cols \(grid.width)\nobj_info num_rows \(grid.height)\n"
        }
        h += "element vertex \(layout.recordCount)\nproperty float x\nproperty float y\nproperty float z\n"
        if layout.hasColors { h += "property uchar red\nproperty uchar green\nproperty uchar blue\n" }
        if layout.hasNormals { h += "property float nx\nproperty float ny\nproperty float nz\nproperty float curvature\n" }
        return h + "end_header\n"
    }
}
