import CImageCodecs
import CloudCore
import SafeIO

/// One of the C decoders over libpng, libjpeg-turbo and libtiff. Each decodes in two calls on an
/// opaque decoder: the header first, so that the size is checked against `ImageLimits` before
/// the output array exists, then the pixels straight into that array.
struct LibraryDecoder: Sendable {
    typealias Open =
        @Sendable (
            UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<OpaquePointer?>?,
            UnsafeMutablePointer<cic_image_info>?, UnsafeMutablePointer<cic_status>?
        ) -> Int32
    typealias Decode = @Sendable (OpaquePointer?, UnsafeMutableRawPointer?, Int, UnsafeMutablePointer<cic_status>?) -> Int32
    typealias Close = @Sendable (OpaquePointer?) -> Void

    let name: String
    let open: Open
    let decodePixels: Decode
    let close: Close

    static let png = LibraryDecoder(name: "PNG", open: cic_png_open, decodePixels: cic_png_decode, close: cic_png_close)
    static let jpeg = LibraryDecoder(name: "JPEG", open: cic_jpeg_open, decodePixels: cic_jpeg_decode, close: cic_jpeg_close)
    static let tiff = LibraryDecoder(name: "TIFF", open: cic_tiff_open, decodePixels: cic_tiff_decode, close: cic_tiff_close)

    /// Opens a decoder on `bytes`, holds the header's size to the limits, runs `body` with the
    /// decoder and the header, and closes it.
    private func withOpened<T>(
        _ bytes: UnsafeRawBufferPointer, origin: String,
        _ body: (OpaquePointer?, cic_image_info) throws -> T
    ) throws -> T {
        var status = cic_status()
        var info = cic_image_info()
        var decoder: OpaquePointer?
        defer { close(decoder) }
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        if open(base, bytes.count, &decoder, &info, &status) != CIC_OK { throw error(status, origin) }
        try ImageLimits.check(width: Int(info.width), height: Int(info.height), origin: origin)
        return try body(decoder, info)
    }

    /// The header alone (the decoder is opened and closed; nothing is decoded).
    func header(_ bytes: UnsafeRawBufferPointer, origin: String) throws -> ImageHeader {
        try withOpened(bytes, origin: origin) { _, info in
            ImageHeader(
                width: Int(info.width), height: Int(info.height), channels: Int(info.channels),
                bitDepth: Int(info.bit_depth), workingBytes: Int(clamping: info.working_bytes))
        }
    }

    func decode(_ bytes: UnsafeRawBufferPointer, origin: String) throws -> DecodedImage {
        try withOpened(bytes, origin: origin) { decoder, info in try pixels(decoder, info, origin: origin) }
    }

    private func pixels(_ decoder: OpaquePointer?, _ info: cic_image_info, origin: String) throws -> DecodedImage {
        var status = cic_status()
        let (width, height, channels) = (Int(info.width), Int(info.height), Int(info.channels))
        let count = width * height * channels
        // The C side writes every sample or fails; on failure the array is dropped unread.
        func fill(_ raw: UnsafeMutableRawBufferPointer) -> Bool {
            decodePixels(decoder, raw.baseAddress, raw.count, &status) == CIC_OK
        }
        let samples: DecodedImage.Samples
        switch info.bit_depth {
        case 8:
            samples = .uint8(
                [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                    if fill(UnsafeMutableRawBufferPointer(buffer)) { initialized = count }
                })
        case 16:
            samples = .uint16(
                [UInt16](unsafeUninitializedCapacity: count) { buffer, initialized in
                    if fill(UnsafeMutableRawBufferPointer(buffer)) { initialized = count }
                })
        default:
            throw CloudError.badInput(.file(origin), "unsupported \(info.bit_depth)-bit \(name)")
        }
        if status.code != CIC_OK { throw error(status, origin) }
        return DecodedImage(width: width, height: height, channels: channels, samples: samples)
    }

    /// Bad input, except when the decoder could not do its work at all (libtiff missing, memory
    /// exhausted): then an I/O error, exit 3.
    private func error(_ status: cic_status, _ origin: String) -> CloudError {
        status.failure(about: .file(origin), doing: "cannot decode \(name): ")
    }
}
