import CloudCore

/// Where a point record's channels come from: which of the file's fields are the coordinates,
/// the color (three fields, or one packed 32-bit rgb / rgba), the normal and the curvature.
/// Every other field is read past and named in `ignored`.
struct CloudChannels {
    /// A field of the record: its index in the file's field list and its type.
    struct Source {
        var index: Int
        var type: ScalarType
    }

    enum Color {
        case separate(Source, Source, Source)
        /// PCL's packed color, 0x00RRGGBB (alpha in the top byte of rgba, not kept).
        case packed(Source)
    }

    var x, y, z: Source
    var color: Color?
    var normal: (Source, Source, Source)?
    var curvature: Source?
    /// Fields read past (intensity, alpha, a PCD histogram, ...).
    var ignored: [String]

    /// The channels of fields named `names` with `types` (nil: a PLY list, never a channel).
    init(names: [String], types: [ScalarType?], path: String) throws {
        func source(_ name: String) -> Source? {
            guard let index = names.firstIndex(of: name), let type = types[index] else { return nil }
            return Source(index: index, type: type)
        }
        func triple(_ a: String, _ b: String, _ c: String) -> (Source, Source, Source)? {
            guard let s = source(a), let t = source(b), let u = source(c) else { return nil }
            return (s, t, u)
        }
        guard let x = source("x"), let y = source("y"), let z = source("z") else {
            throw CloudError.badInput(.file(path), "the points have no scalar x, y and z")
        }
        (self.x, self.y, self.z) = (x, y, z)
        var used: Set<String> = ["x", "y", "z"]
        if let rgb = triple("red", "green", "blue") {
            color = .separate(rgb.0, rgb.1, rgb.2)
            used.formUnion(["red", "green", "blue"])
        } else if let rgb = triple("r", "g", "b") {
            color = .separate(rgb.0, rgb.1, rgb.2)
            used.formUnion(["r", "g", "b"])
        } else if let packed = source("rgb") ?? source("rgba") {
            guard packed.type.size == 4 else {
                throw CloudError.badInput(
                    .file(path), "field \(names[packed.index]) must be a 4-byte packed color, not \(packed.type.size) bytes")
            }
            color = .packed(packed)
            used.insert(names[packed.index])
        }
        if let n = triple("nx", "ny", "nz") {
            normal = n
            used.formUnion(["nx", "ny", "nz"])
        } else if let n = triple("normal_x", "normal_y", "normal_z") {
            normal = n
            used.formUnion(["normal_x", "normal_y", "normal_z"])
        }
        if normal != nil, let c = source("curvature") {
            curvature = c
            used.insert("curvature")
        }
        ignored = names.filter { !used.contains($0) && $0 != "_" }
    }
}

extension CloudChannels {
    /// Bytes a point takes in the cloud being read: positions, and colors, normals and curvature
    /// when the file has them.
    var bytesPerPoint: Int { 12 + (color == nil ? 0 : 3) + (normal == nil ? 0 : 12) + (curvature == nil ? 0 : 4) }
}

/// The channels of a cloud being read, allocated once at their final size and filled in place.
struct CloudOutput {
    var positions: [Float]
    var colors: [UInt8]?
    var normals: [Float]?
    var curvature: [Float]?
    let count: Int

    init(count: Int, channels: CloudChannels) {
        self.count = count
        positions = uninitializedArray(3 * count)
        colors = channels.color == nil ? nil : uninitializedArray(3 * count)
        normals = channels.normal == nil ? nil : uninitializedArray(3 * count)
        curvature = channels.curvature == nil ? nil : uninitializedArray(count)
    }

    func cloud(grid: PointCloud.Grid?) -> PointCloud {
        PointCloud(positions: positions, colors: colors, normals: normals, curvature: curvature, organized: grid)
    }
}

/// An array of `count` trivial values whose every element the caller writes before any is read:
/// reading a large cloud should not pay for zero-filling what is about to be overwritten.
func uninitializedArray<T: BitwiseCopyable>(_ count: Int) -> [T] {
    [T](unsafeUninitializedCapacity: count) { buffer, initialized in
        if let base = buffer.baseAddress { HugePages.advise(UnsafeMutableRawPointer(base), count: count * MemoryLayout<T>.stride) }
        initialized = count
    }
}

/// A color channel's value as 8-bit sRGB: 8-bit integers as they are, wider integers scaled from
/// their range, floats as 0...1 intensities (clamped, rounded to nearest).
@inline(__always)
func colorByte(_ value: Double, _ type: ScalarType) -> UInt8 {
    if type == .uint8 { return UInt8(truncatingIfNeeded: Int(value)) }
    let unit = value / type.maxColorValue
    guard unit > 0 else { return 0 }  // NaN too
    return unit >= 1 ? 255 : UInt8((unit * 255).rounded())
}
