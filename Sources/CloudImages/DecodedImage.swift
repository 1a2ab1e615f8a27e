import CloudCore

/// An image as a file stored it, before any interpretation: 8- or 16-bit samples, 1 to 4 channels,
/// row-major, channels interleaved. 16-bit samples are in host order whatever the file's order.
public struct DecodedImage: Equatable, Sendable {
    public enum Samples: Equatable, Sendable {
        case uint8([UInt8])
        case uint16([UInt16])
    }

    public var width: Int
    public var height: Int
    public var channels: Int
    public var samples: Samples

    public init(width: Int, height: Int, channels: Int, samples: Samples) {
        self.width = width
        self.height = height
        self.channels = channels
        self.samples = samples
    }
}

extension DecodedImage {
    /// 8 or 16.
    public var bitDepth: Int {
        if case .uint16 = samples { return 16 }
        return 8
    }

    /// The image as sRGB 8-bit color: gray is repeated into r, g and b, alpha is dropped, 16-bit
    /// samples are scaled to 8 bits with rounding (v * 255 / 65535, so 257 * x gives back x).
    /// `origin` names the image in the error for an inconsistent image.
    public func colorImage(origin: String) throws -> ColorImage {
        try checkConsistent(origin: origin)
        let pixels = width * height
        let (r, g, b) = channels >= 3 ? (0, 1, 2) : (0, 0, 0)
        switch samples {
        case .uint8(let values):
            if channels == 3 { return ColorImage(width: width, height: height, rgb: values) }
            return ColorImage(
                width: width, height: height, rgb: Self.interleave(values, pixels: pixels, channels: channels, r, g, b) { $0 })
        case .uint16(let values):
            return ColorImage(
                width: width, height: height,
                rgb: Self.interleave(values, pixels: pixels, channels: channels, r, g, b) {
                    UInt8((UInt32($0) * 255 + 32767) / 65535)
                })
        }
    }

    /// The image as depth in metres, for a single-channel 16-bit image whose samples count
    /// `unitsPerMetre` to the metre (1000 for millimetres, 5000 for TUM); 0 stays "no depth".
    public func depthMap(unitsPerMetre: Double, origin: String) throws -> DepthMap {
        try checkConsistent(origin: origin)
        guard channels == 1, case .uint16(let values) = samples else {
            throw CloudError.badInput(
                .file(origin),
                "depth must be a 16-bit single-channel image, this is \(bitDepth)-bit with \(channels) channel\(channels == 1 ? "" : "s")")
        }
        // DepthMap reads little-endian planes; the samples are in host order.
        #if _endian(big)
        let plane = values.map { $0.littleEndian }
        #else
        let plane = values
        #endif
        return try plane.withUnsafeBytes {
            try DepthMap(raw: $0, width: width, height: height, encoding: .uint16(unitsPerMetre: unitsPerMetre), origin: origin)
        }
    }

    private func checkConsistent(origin: String) throws {
        let count: Int
        switch samples {
        case .uint8(let values): count = values.count
        case .uint16(let values): count = values.count
        }
        guard (1...4).contains(channels), width > 0, height > 0, count == width * height * channels else {
            throw CloudError.badInput(.file(origin), "image of \(width)x\(height) with \(channels) channels holds \(count) samples")
        }
    }

    private static func interleave<T>(
        _ values: [T], pixels: Int, channels: Int, _ r: Int, _ g: Int, _ b: Int,
        _ convert: (T) -> UInt8
    ) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: pixels * 3) { out, initialized in
            values.withUnsafeBufferPointer { v in
                for i in 0..<pixels {
                    let s = i * channels
                    out[3 * i] = convert(v[s + r])
                    out[3 * i + 1] = convert(v[s + g])
                    out[3 * i + 2] = convert(v[s + b])
                }
            }
            initialized = pixels * 3
        }
    }
}
