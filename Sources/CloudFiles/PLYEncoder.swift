import CloudCore

/// PLY as Docs/formats.md describes it: `ply`, the format, cloudgen's viewpoint comment, for an
/// organized cloud PCL's `obj_info num_cols / num_rows`, `element vertex N` with x y z, uchar red
/// green blue, nx ny nz curvature, then for an organized cloud the `range_grid` element (a list
/// of one int vertex index per cell with a point, an empty list for one without). No `element
/// camera` (some readers choke on it). Only finite points are vertices.
struct PLYEncoder {
    let layout: RecordLayout
    let ascii: Bool

    func write(to sink: FileSink, path: String) throws {
        let cloud = layout.cloud
        if layout.organized && layout.finite > Int(Int32.max) {
            throw CloudError.badInput("\(path): the organized cloud has more points than PLY's range_grid can index")
        }
        try sink.append(header)
        if ascii {
            try writeAsciiVertices(sink)
        } else {
            try writeBinaryVertices(sink)
        }
        guard layout.organized else { return }
        // range_grid: the vertex index of each cell that has a point.
        try cloud.positions.withUnsafeBufferPointer { p in
            var vertex: Int32 = 0
            for i in 0..<cloud.count {
                let hasPoint = layout.isPoint(p.baseAddress!, i)
                if ascii {
                    try sink.append(hasPoint ? "1 \(vertex)\n" : "0\n")
                } else {
                    let out = try sink.reserve(5)
                    out.storeBytes(of: hasPoint ? 1 : 0, as: UInt8.self)
                    if hasPoint { out.storeBytes(of: vertex.littleEndian, toByteOffset: 1, as: Int32.self) }
                    sink.commit(hasPoint ? 5 : 1)
                }
                if hasPoint { vertex += 1 }
            }
        }
    }

    private var header: String {
        var h = "ply\nformat \(ascii ? "ascii" : "binary_little_endian") 1.0\n"
        if layout.viewpoint != nil { h += "comment cloudgen viewpoint \(layout.viewpointText)\n" }
        if let grid = layout.cloud.organized, layout.organized {
            h += "obj_info num_cols \(grid.width)\nobj_info num_rows \(grid.height)\n"
        }
        h += "element vertex \(layout.finite)\nproperty float x\nproperty float y\nproperty float z\n"
        if layout.hasColors { h += "property uchar red\nproperty uchar green\nproperty uchar blue\n" }
        if layout.hasNormals { h += "property float nx\nproperty float ny\nproperty float nz\nproperty float curvature\n" }
        if layout.organized { h += "element range_grid \(layout.cloud.count)\nproperty list uchar int vertex_indices\n" }
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
                for j in i..<end where layout.isPoint(p, j) {
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
            for j in 0..<cloud.count where layout.isPoint(p, j) {
                line.removeAll(keepingCapacity: true)
                line += "\(p[3 * j]) \(p[3 * j + 1]) \(p[3 * j + 2])"
                if let c { line += " \(c[3 * j]) \(c[3 * j + 1]) \(c[3 * j + 2])" }
                if let n { line += " \(n[3 * j]) \(n[3 * j + 1]) \(n[3 * j + 2]) \(k?[j] ?? 0)" }
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
