import CImageCodecs
import CloudCore
import SafeIO

/// Writes 8-bit JPEGs through libjpeg-turbo, atomically (as `PNGWriter`), or into memory: a stream
/// frame's color travels as JPEG (`cloudgen stream`), and the tests' fixtures in the layouts phone
/// capture apps export are written here.
public enum JPEGWriter {
    /// A photo's usual quality: what a viewer of a stream sees, and what the tests compare with a
    /// tolerance, not exactly.
    public static let defaultQuality = 90

    public static func write(rgb image: ColorImage, to path: String, quality: Int = defaultQuality) throws {
        let bytes = try encode(image.rgb, width: image.width, height: image.height, channels: 3, quality: quality, origin: path)
        try AtomicFile.write(bytes: bytes, to: path)
    }

    /// A complete JPEG file in memory of packed 8-bit gray (`channels` 1) or RGB (3) rows.
    public static func encode(
        _ pixels: [UInt8], width: Int, height: Int, channels: Int, quality: Int = defaultQuality,
        origin: String
    ) throws -> [UInt8] {
        try ImageLimits.check(width: width, height: height, origin: origin)
        guard channels == 1 || channels == 3, pixels.count == width * height * channels else {
            throw CloudError.badInput(
                .file(origin),
                "a \(width)x\(height) image of \(channels) channels needs \(width * height * channels) samples, got \(pixels.count)")
        }
        var status = cic_status()
        var bytes: UnsafeMutablePointer<UInt8>?
        var size = 0
        pixels.withUnsafeBufferPointer {
            _ = cic_jpeg_encode($0.baseAddress, UInt32(width), UInt32(height), Int32(channels), Int32(quality), &bytes, &size, &status)
        }
        defer { cic_free(bytes) }
        guard status.code == CIC_OK, let bytes else { throw status.failure(about: .file(origin)) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }
}
