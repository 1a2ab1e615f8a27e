import CImageCodecs
import CloudCore

/// Writes 8-bit RGB JPEGs through libjpeg-turbo, atomically (as `PNGWriter`): the color frames of
/// the layouts phone capture apps export are JPEG, and fixtures in those layouts are written here.
public enum JPEGWriter {
    /// libjpeg's own default; the fixtures' colors are compared with a tolerance, not exactly.
    public static let defaultQuality = 90

    public static func write(rgb image: ColorImage, to path: String, quality: Int = defaultQuality) throws {
        try ImageLimits.check(width: image.width, height: image.height, origin: path)
        guard image.rgb.count == image.width * image.height * 3 else {
            throw CloudError.badInput("\(path): a \(image.width)x\(image.height) image needs \(image.width * image.height * 3) samples, got \(image.rgb.count)")
        }
        var status = cic_status()
        var bytes: UnsafeMutablePointer<UInt8>?
        var size = 0
        image.rgb.withUnsafeBufferPointer {
            _ = cic_jpeg_encode($0.baseAddress, UInt32(image.width), UInt32(image.height), 3, Int32(quality), &bytes, &size, &status)
        }
        defer { cic_free(bytes) }
        guard status.code == CIC_OK, let bytes else {
            let message = String(fixedCString: status.message)
            throw status.code == CIC_BAD_INPUT ? CloudError.badInput("\(path): \(message)") : CloudError.io("\(path): \(message)")
        }
        try AtomicFile.write(bytes: Array(UnsafeBufferPointer(start: bytes, count: size)), to: path)
    }
}
