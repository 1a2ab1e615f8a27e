import CloudCore

/// A cloud about to be written: its channels, which of its points are written, and the record
/// loops both formats share.
struct RecordLayout {
    let cloud: PointCloud
    /// tx ty tz qw qx qy qz, or nil for the identity.
    let viewpoint: [Double]?
    /// Written as cloudgen's `units relative` comment (CloudFileHeader.relativeUnits).
    let relativeUnits: Bool
    /// Points with all three coordinates finite.
    let finite: Int
    var organized: Bool { (cloud.organized?.height ?? 1) > 1 }
    var hasColors: Bool { cloud.colors != nil }
    var hasNormals: Bool { cloud.normals != nil }
    /// The records written: every cell of an organized cloud, the finite points otherwise.
    var recordCount: Int { organized ? cloud.count : finite }

    /// Whether point `i` has three finite coordinates (a NaN or infinite one marks an empty pixel).
    @inline(__always)
    func isPoint(_ p: UnsafePointer<Float>, _ i: Int) -> Bool {
        p[3 * i].isFinite && p[3 * i + 1].isFinite && p[3 * i + 2].isFinite
    }

    /// Whether point `j` is written: every cell of an organized cloud (an empty one as NaN), the
    /// finite points otherwise.
    @inline(__always)
    func isWritten(_ p: UnsafePointer<Float>, _ j: Int) -> Bool {
        organized || isPoint(p, j)
    }

    /// The seven viewpoint numbers as text that reads back as the same doubles.
    var viewpointText: String {
        (viewpoint ?? [0, 0, 0, 1, 0, 0, 0]).map { $0 == $0.rounded() && abs($0) < 1e15 ? String(Int64($0)) : "\($0)" }
            .joined(separator: " ")
    }

    /// The bytes of one binary record's color (`writeBinaryRecords`).
    private func binaryColorBytes(packedColor packed: Bool) -> Int {
        hasColors ? (packed ? 4 : 3) : 0
    }

    /// The bytes of one binary record (`writeBinaryRecords`).
    func binaryRecordBytes(packedColor packed: Bool) -> Int {
        12 + binaryColorBytes(packedColor: packed) + (hasNormals ? 16 : 0)
    }

    /// Little-endian records of x y z, the color (PLY's uchar r g b, or with `packedColor` PCD's
    /// 32-bit 0x00RRGGBB), nx ny nz curvature (0 when the cloud has none), packed a sink's buffer
    /// at a time.
    func writeBinaryRecords(to sink: FileSink, packedColor packed: Bool) throws {
        let colorBytes = binaryColorBytes(packedColor: packed)
        let step = binaryRecordBytes(packedColor: packed)
        let perChunk = FileSink.bufferBytes / step
        try withChannels(cloud) { p, c, n, k in
            var i = 0
            while i < cloud.count {
                let end = min(cloud.count, i + perChunk)
                var out = try sink.reserve((end - i) * step)
                var written = 0
                for j in i..<end where isWritten(p, j) {
                    out.copyMemory(from: p + 3 * j, byteCount: 12)
                    if let c {
                        if packed {
                            (out + 12).storeBytes(of: packedColor(c, j).littleEndian, as: UInt32.self)
                        } else {
                            (out + 12).copyMemory(from: c + 3 * j, byteCount: 3)
                        }
                    }
                    if let n {
                        (out + 12 + colorBytes).copyMemory(from: n + 3 * j, byteCount: 12)
                        (out + 24 + colorBytes).storeBytes(of: (k?[j] ?? 0).bitPattern.littleEndian, as: UInt32.self)
                    }
                    out += step
                    written += step
                }
                sink.commit(written)
                i = end
            }
        }
    }

    /// One line per record: x y z, the color as `color` spells point `j`'s, nx ny nz curvature.
    func writeAsciiRecords(to sink: FileSink, color: (UnsafePointer<UInt8>, Int) -> String) throws {
        try withChannels(cloud) { p, c, n, k in
            var line = ""
            for j in 0..<cloud.count where isWritten(p, j) {
                line.removeAll(keepingCapacity: true)
                line += "\(asciiFloat(p[3 * j])) \(asciiFloat(p[3 * j + 1])) \(asciiFloat(p[3 * j + 2]))"
                if let c { line += " " + color(c, j) }
                if let n {
                    line += " \(asciiFloat(n[3 * j])) \(asciiFloat(n[3 * j + 1])) \(asciiFloat(n[3 * j + 2])) \(asciiFloat(k?[j] ?? 0))"
                }
                line += "\n"
                try sink.append(line)
            }
        }
    }
}

/// A float in ascii data as PCL's and Open3D's readers take it: the shortest decimal that reads
/// back as the same float, `nan` for an empty pixel (Swift would print a signalling NaN as `snan`).
func asciiFloat(_ value: Float) -> String { value.isNaN ? "nan" : "\(value)" }

/// PCL's packed color of point `j`: 0x00RRGGBB (alpha 0 keeps it a finite float in binary).
@inline(__always)
func packedColor(_ c: UnsafePointer<UInt8>, _ j: Int) -> UInt32 {
    UInt32(c[3 * j]) << 16 | UInt32(c[3 * j + 1]) << 8 | UInt32(c[3 * j + 2])
}

/// The cloud's channels as pointers: positions, colors, normals, curvature (nil when absent).
func withChannels<R>(
    _ cloud: PointCloud,
    _ body: (UnsafePointer<Float>, UnsafePointer<UInt8>?, UnsafePointer<Float>?, UnsafePointer<Float>?) throws -> R
) rethrows -> R {
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
