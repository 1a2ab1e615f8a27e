import CloudCore

/// The nearest point at each pixel, found by splatting every point as a square of `pointSize`
/// pixels into a depth buffer.
///
/// Each pixel holds one 64-bit key: the point's depth (a positive Float, whose bit pattern orders
/// like the number) in the high half and its index in the low half, so the depth test and the
/// store are one integer comparison, ties go to the lower index whatever the thread order, and
/// shading afterwards runs once per pixel rather than once per point. `empty` marks no point.
///
/// Large clouds are split into one range of points per core, each splatted into a buffer of its
/// own (no locks, no atomics); the buffers are then merged by taking the smaller key per pixel.
public struct DepthBuffer: Sendable {
    public static let empty = UInt64.max

    public let width: Int
    public let height: Int
    public private(set) var keys: [UInt64]

    /// Below this many points one thread is faster than starting and merging a second buffer.
    static let parallelThreshold = 200_000
    /// Bytes the per-thread buffers may take together: each is a whole picture of 8-byte keys, so
    /// at the largest sizes (16384² is 2 GiB per buffer) a second one would double peak memory
    /// for a small gain; past this one thread splats into one buffer.
    static let memoryBudget = 512 << 20

    public init(width: Int, height: Int, keys: [UInt64]) {
        precondition(keys.count == width * height, "one key per pixel")
        self.width = width
        self.height = height
        self.keys = keys
    }

    @inline(__always) public static func depth(_ key: UInt64) -> Float { Float(bitPattern: UInt32(truncatingIfNeeded: key >> 32)) }
    @inline(__always) public static func index(_ key: UInt64) -> Int { Int(truncatingIfNeeded: key & 0xFFFF_FFFF) }

    /// Splats `positions` (x y z triples; non-finite points are skipped) as seen by `camera`.
    /// `threads` 0 means one per active core when the cloud is large enough to gain from it.
    public init(positions: UnsafeBufferPointer<Float>, camera: OrbitCamera, pointSize: Int, threads: Int = 0) {
        precondition(positions.count / 3 <= Int(UInt32.max), "point indices must fit the key's low 32 bits")
        precondition(pointSize >= 1, "a point covers at least one pixel")
        let (w, h) = (camera.width, camera.height)
        let count = positions.count / 3
        let cores = threads > 0 ? threads : (count >= Self.parallelThreshold ? ProcessorCount.active : 1)
        var parts = Swift.max(1, Swift.min(cores, count / 1000 + 1))
        if w * h * MemoryLayout<UInt64>.size * parts > Self.memoryBudget { parts = 1 }
        let projection = Projection(camera)
        var buffers = [[UInt64]](repeating: [], count: parts)
        buffers.withUnsafeMutableBufferPointer { slots in
            Parallel.parts(parts) { part in
                var keys = [UInt64](repeating: Self.empty, count: w * h)
                let range = (count * part / parts)..<(count * (part + 1) / parts)
                keys.withUnsafeMutableBufferPointer {
                    Self.splat(positions, range: range, projection: projection, pointSize: pointSize, width: w, height: h, into: $0)
                }
                slots[part] = keys
            }
        }
        var merged = buffers.removeFirst()
        if !buffers.isEmpty { Self.merge(buffers, into: &merged, rows: h, width: w) }
        self.init(width: w, height: h, keys: merged)
    }

    /// The camera as three rows of a 3x4 matrix taking a point to (column·z, row·z, z).
    struct Projection {
        var columnRow: SIMD4<Float>
        var rowRow: SIMD4<Float>
        var depthRow: SIMD4<Float>
        var near: Float

        init(_ camera: OrbitCamera) {
            let b = camera.basis
            let eye = camera.eye
            let (f, cx, cy) = (camera.focal, Float(camera.width) / 2, Float(camera.height) / 2)
            func row(_ v: SIMD3<Float>) -> SIMD4<Float> { SIMD4(v.x, v.y, v.z, -dot(v, eye)) }
            columnRow = row(f * b.right + cx * b.forward)
            rowRow = row(-f * b.up + cy * b.forward)
            depthRow = row(b.forward)
            near = camera.near
        }
    }

    private static func splat(
        _ p: UnsafeBufferPointer<Float>, range: Range<Int>, projection m: Projection, pointSize: Int,
        width: Int, height: Int, into keys: UnsafeMutableBufferPointer<UInt64>
    ) {
        let (a, b, c, near) = (m.columnRow, m.rowRow, m.depthRow, m.near)
        let (fw, fh) = (Float(width), Float(height))
        // A square of side s covers columns x−lo ... x−lo+s−1 around the point's own pixel.
        let lo = (pointSize - 1) / 2
        for i in range {
            let (x, y, z) = (p[3 * i], p[3 * i + 1], p[3 * i + 2])
            let depth = c.x * x + c.y * y + c.z * z + c.w
            // `>` is false for NaN, so non-finite points fall out here or at the bounds below.
            guard depth > near else { continue }
            let inverse = 1 / depth
            let column = (a.x * x + a.y * y + a.z * z + a.w) * inverse
            let row = (b.x * x + b.y * y + b.z * z + b.w) * inverse
            guard column >= 0, column < fw, row >= 0, row < fh else { continue }
            let key = UInt64(depth.bitPattern) << 32 | UInt64(i)
            let (px, py) = (Int(column), Int(row))
            if pointSize == 1 {
                let at = py * width + px
                if key < keys[at] { keys[at] = key }
                continue
            }
            let (x0, y0) = (Swift.max(px - lo, 0), Swift.max(py - lo, 0))
            let (x1, y1) = (Swift.min(px - lo + pointSize, width), Swift.min(py - lo + pointSize, height))
            for yy in y0..<y1 {
                var at = yy * width + x0
                for _ in x0..<x1 {
                    if key < keys[at] { keys[at] = key }
                    at += 1
                }
            }
        }
    }

    private static func merge(_ others: [[UInt64]], into merged: inout [UInt64], rows: Int, width: Int) {
        merged.withUnsafeMutableBufferPointer { target in
            ParallelRows.run(rows) { band in
                for other in others {
                    other.withUnsafeBufferPointer { source in
                        for i in (band.lowerBound * width)..<(band.upperBound * width) where source[i] < target[i] {
                            target[i] = source[i]
                        }
                    }
                }
            }
        }
    }

    /// Pixels that hold a point.
    public var coveredCount: Int { keys.reduce(0) { $0 + ($1 == Self.empty ? 0 : 1) } }
}
