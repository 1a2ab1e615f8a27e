/// An sRGB 8-bit image, interleaved r g b, row-major: what every cloud's colors are sampled from.
public struct ColorImage: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public var rgb: [UInt8]

    public init(width: Int, height: Int, rgb: [UInt8]) {
        precondition(width * height * 3 == rgb.count, "color image size does not match its samples")
        self.width = width
        self.height = height
        self.rgb = rgb
    }

    /// Interleaved r g b rows, possibly padded to `bytesPerRow`.
    public init(rgb raw: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int? = nil, origin: String) throws {
        try self.init(
            raw, width: width, height: height, bytesPerPixel: 3, bytesPerRow: bytesPerRow,
            origin: origin, order: (0, 1, 2))
    }

    /// Interleaved b g r a rows (kCVPixelFormatType_32BGRA); alpha is dropped.
    public init(bgra raw: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int? = nil, origin: String) throws {
        try self.init(
            raw, width: width, height: height, bytesPerPixel: 4, bytesPerRow: bytesPerRow,
            origin: origin, order: (2, 1, 0))
    }

    private init(
        _ raw: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerPixel: Int, bytesPerRow: Int?,
        origin: String, order: (Int, Int, Int)
    ) throws {
        try ImageLimits.check(width: width, height: height, origin: origin)
        let stride = bytesPerRow ?? width * bytesPerPixel
        try Self.checkPlane(
            raw.count, rows: height, rowBytes: width * bytesPerPixel, stride: stride,
            what: "color plane", origin: origin)
        var out = [UInt8](repeating: 0, count: width * height * 3)
        out.withUnsafeMutableBufferPointer { dst in
            for y in 0..<height {
                var s = y * stride
                var d = y * width * 3
                for _ in 0..<width {
                    dst[d] = raw[s + order.0]
                    dst[d + 1] = raw[s + order.1]
                    dst[d + 2] = raw[s + order.2]
                    s += bytesPerPixel
                    d += 3
                }
            }
        }
        self.init(width: width, height: height, rgb: out)
    }

    static func checkPlane(_ bytes: Int, rows: Int, rowBytes: Int, stride: Int, what: String, origin: String) throws {
        guard stride >= rowBytes else {
            throw CloudError.badInput("\(origin): \(what) row stride \(stride) is shorter than a row of \(rowBytes) bytes")
        }
        let needed = stride * (rows - 1) + rowBytes
        guard bytes >= needed else {
            throw CloudError.badInput("\(origin): \(what) holds \(bytes) bytes, needs \(needed)")
        }
    }
}
