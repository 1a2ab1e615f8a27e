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

    func write(to sink: FileSink, path: String) throws {
        try sink.append(header)
        if ascii {
            try writeAsciiVertices(sink)
        } else {
            try writeBinaryVertices(sink)
        }
    }

    /// The vertices written: every cell of an organized cloud, the finite points otherwise.
    private var vertices: Int { layout.organized ? layout.cloud.count : layout.finite }

    /// Whether point `j` is a vertex.
    @inline(__always)
    private func isWritten(_ p: UnsafePointer<Float>, _ j: Int) -> Bool {
        layout.organized || layout.isPoint(p, j)
    }

    private var header: String {
        var h = "ply\nformat \(ascii ? "ascii" : "binary_little_endian") 1.0\n"
        if layout.viewpoint != nil { h += "comment cloudgen viewpoint \(layout.viewpointText)\n" }
        if let grid = layout.cloud.organized, layout.organized {
            h += "obj_info num_cols \(grid.width)\nobj_info num_rows \(grid.height)\n"
        }
        h += "element vertex \(vertices)\nproperty float x\nproperty float y\nproperty float z\n"
        if layout.hasColors { h += "property uchar red\nproperty uchar green\nproperty uchar blue\n" }
        if layout.hasNormals { h += "property float nx\nproperty float ny\nproperty float nz\nproperty float curvature\n" }
        return h + "end_header\n"
    }

    private func writeBinaryVertices(_ sink: FileSink) throws {
        let cloud = layout.cloud
        let step = 12 + (layout.hasColors ? 3 : 0) + (layout.hasNormals ? 16 : 0)
        let perChunk = FileSink.bufferBytes / step
        try withChannels(cloud) { p, c, n, k in
            var i = 0
            while i < cloud.count {
                let end = min(cloud.count, i + perChunk)
                var out = try sink.reserve((end - i) * step)
                var written = 0
                for j in i..<end where isWritten(p, j) {
                    out.copyMemory(from: p + 3 * j, byteCount: 12)
                    var o = 12
                    if let c {
                        (out + 12).copyMemory(from: c + 3 * j, byteCount: 3)
                        o = 15
                    }
                    if let n {
                        (out + o).copyMemory(from: n + 3 * j, byteCount: 12)
                        (out + o + 12).storeBytes(of: k?[j] ?? 0, as: Float.self)
                    }
                    out += step
                    written += step
                }
                sink.commit(written)
                i = end
            }
        }
    }

    private func writeAsciiVertices(_ sink: FileSink) throws {
        let cloud = layout.cloud
        try withChannels(cloud) { p, c, n, k in
            var line = ""
            for j in 0..<cloud.count where isWritten(p, j) {
                line.removeAll(keepingCapacity: true)
                line += "\(asciiFloat(p[3 * j])) \(asciiFloat(p[3 * j + 1])) \(asciiFloat(p[3 * j + 2]))"
                if let c { line += " \(c[3 * j]) \(c[3 * j + 1]) \(c[3 * j + 2])" }
                if let n { line += " \(asciiFloat(n[3 * j])) \(asciiFloat(n[3 * j + 1])) \(asciiFloat(n[3 * j + 2])) \(asciiFloat(k?[j] ?? 0))" }
                line += "\n"
                try sink.append(line)
            }
        }
    }
}

/// The cloud's channels as pointers: positions, colors, normals, curvature (nil when absent).
func withChannels<R>(_ cloud: PointCloud,
                     _ body: (UnsafePointer<Float>, UnsafePointer<UInt8>?, UnsafePointer<Float>?, UnsafePointer<Float>?) throws -> R) rethrows -> R {
    try cloud.positions.withUnsafeBufferPointer { p in
        try withOptional(cloud.colors) { c in
            try withOptional(cloud.normals) { n in
                try withOptional(cloud.curvature) { k in try body(p.baseAddress!, c, n, k) }
            }
        }
    }
}

private func withOptional<T, R>(_ array: [T]?, _ body: (UnsafePointer<T>?) throws -> R) rethrows -> R {
    guard let array else { return try body(nil) }
    return try array.withUnsafeBufferPointer { try body($0.baseAddress) }
}
