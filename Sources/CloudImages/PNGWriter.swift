import CImageCodecs
import CloudCore
import SafeIO

/// Writes PNGs through libpng, atomically: into a temporary file in the destination's folder that
/// is renamed over the destination when complete, and removed on any failure, so a half-written
/// image never exists under the destination's name.
///
/// 16-bit gray is how RGBD exports store depth (millimetres, as Open3D and TUM read it); 8-bit RGB
/// is the color image and previews. Samples are stored exactly: no gamma, sRGB or other chunk
/// that would ask a reader to convert them.
public enum PNGWriter {
    /// zlib's own default: a good size for little time. 1 is about twice as fast, 9 rarely smaller.
    public static let defaultCompressionLevel = 6

    /// `fastFilter` as for `encode`: files that other programs read back often (RGBD exports)
    /// decode faster with the SUB filter alone, as TUM's and Redwood's PNGs are stored.
    public static func write(
        rgb image: ColorImage, to path: String,
        compressionLevel: Int = defaultCompressionLevel, fastFilter: Bool = false
    ) throws {
        try check(
            width: image.width, height: image.height, samples: image.rgb.count, channels: 3,
            compressionLevel: compressionLevel, path: path)
        try image.rgb.withUnsafeBytes {
            try write(
                $0, width: image.width, height: image.height, channels: 3, bitDepth: 8,
                compressionLevel: compressionLevel, fastFilter: fastFilter, to: path)
        }
    }

    /// `samples`: width * height values, row-major (e.g. depth in millimetres, 0 for none).
    public static func write(
        gray16 samples: [UInt16], width: Int, height: Int, to path: String,
        compressionLevel: Int = defaultCompressionLevel, fastFilter: Bool = false
    ) throws {
        try check(
            width: width, height: height, samples: samples.count, channels: 1,
            compressionLevel: compressionLevel, path: path)
        try samples.withUnsafeBytes {
            try write(
                $0, width: width, height: height, channels: 1, bitDepth: 16,
                compressionLevel: compressionLevel, fastFilter: fastFilter, to: path)
        }
    }

    /// `samples`: width * height 8-bit values, row-major (a confidence map, a mask).
    public static func write(
        gray8 samples: [UInt8], width: Int, height: Int, to path: String,
        compressionLevel: Int = defaultCompressionLevel
    ) throws {
        try check(
            width: width, height: height, samples: samples.count, channels: 1,
            compressionLevel: compressionLevel, path: path)
        try samples.withUnsafeBytes {
            try write(
                $0, width: width, height: height, channels: 1, bitDepth: 8,
                compressionLevel: compressionLevel, fastFilter: false, to: path)
        }
    }

    /// A complete 8-bit RGB PNG file in memory: for previews, written with `AtomicFile` or wrapped
    /// into an animated PNG. `fastFilter` uses the SUB row filter alone instead of libpng's
    /// per-row adaptive choice: several times faster on rendered images, a few percent larger.
    public static func encode(
        rgb image: ColorImage, compressionLevel: Int = 1, fastFilter: Bool = true,
        origin: String
    ) throws -> [UInt8] {
        try check(
            width: image.width, height: image.height, samples: image.rgb.count, channels: 3,
            compressionLevel: compressionLevel, path: origin)
        var status = cic_status()
        var bytes: UnsafeMutablePointer<UInt8>?
        var size = 0
        image.rgb.withUnsafeBytes {
            _ = cic_png_encode(
                $0.baseAddress, UInt32(image.width), UInt32(image.height), 3, 8, Int32(compressionLevel),
                fastFilter ? 1 : 0, &bytes, &size, &status)
        }
        defer { cic_free(bytes) }
        guard status.code == CIC_OK, let bytes else { throw status.failure(about: .file(origin)) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }

    /// A complete 16-bit grayscale PNG in memory (a depth image of a stream frame).
    public static func encode(gray16 samples: [UInt16], width: Int, height: Int, compressionLevel: Int = 1, origin: String) throws
        -> [UInt8]
    {
        try check(width: width, height: height, samples: samples.count, channels: 1, compressionLevel: compressionLevel, path: origin)
        var status = cic_status()
        var bytes: UnsafeMutablePointer<UInt8>?
        var size = 0
        samples.withUnsafeBytes {
            _ = cic_png_encode($0.baseAddress, UInt32(width), UInt32(height), 1, 16, Int32(compressionLevel), 0, &bytes, &size, &status)
        }
        defer { cic_free(bytes) }
        guard status.code == CIC_OK, let bytes else { throw status.failure(about: .file(origin)) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }

    private static func check(
        width: Int, height: Int, samples: Int, channels: Int, compressionLevel: Int,
        path: String
    ) throws {
        try ImageLimits.check(width: width, height: height, origin: path)
        guard samples == width * height * channels else {
            throw CloudError.badInput(.file(path), "a \(width)x\(height) image needs \(width * height * channels) samples, got \(samples)")
        }
        guard (0...9).contains(compressionLevel) else {
            throw CloudError.badInput(.file(path), "PNG compression level \(compressionLevel) is outside 0...9")
        }
    }

    private static func write(
        _ pixels: UnsafeRawBufferPointer, width: Int, height: Int, channels: Int, bitDepth: Int,
        compressionLevel: Int, fastFilter: Bool, to path: String
    ) throws {
        try AtomicFile.write(path) { temporary in
            var status = cic_status()
            cic_png_write(
                temporary, pixels.baseAddress, UInt32(width), UInt32(height), Int32(channels),
                Int32(bitDepth), Int32(compressionLevel), fastFilter ? 1 : 0, &status)
            if let error = status.error(about: .file(path)) { throw error }
        }
    }
}
