import CImageCodecs
import CloudCore

/// One of the C decoders over libpng, libjpeg-turbo and libtiff. Each decodes in two calls on an
/// opaque decoder: the header first, so that the size is checked against `ImageLimits` before
/// the output array exists, then the pixels straight into that array.
struct LibraryDecoder {
    typealias Open = (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<OpaquePointer?>?,
                      UnsafeMutablePointer<cic_image_info>?, UnsafeMutablePointer<cic_status>?) -> Int32
    typealias Decode = (OpaquePointer?, UnsafeMutableRawPointer?, Int, UnsafeMutablePointer<cic_status>?) -> Int32
    typealias Close = (OpaquePointer?) -> Void

    let name: String
    let open: Open
    let decodePixels: Decode
    let close: Close

    static let png = LibraryDecoder(name: "PNG", open: cic_png_open, decodePixels: cic_png_decode, close: cic_png_close)
    static let jpeg = LibraryDecoder(name: "JPEG", open: cic_jpeg_open, decodePixels: cic_jpeg_decode, close: cic_jpeg_close)
    static let tiff = LibraryDecoder(name: "TIFF", open: cic_tiff_open, decodePixels: cic_tiff_decode, close: cic_tiff_close)

    /// The header alone (the decoder is opened and closed; nothing is decoded).
    func header(_ bytes: UnsafeRawBufferPointer, origin: String) throws -> ImageHeader {
        var status = cic_status()
        var info = cic_image_info()
        var decoder: OpaquePointer?
        defer { close(decoder) }
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        if open(base, bytes.count, &decoder, &info, &status) != CIC_OK { throw error(status, origin) }
        try ImageLimits.check(width: Int(info.width), height: Int(info.height), origin: origin)
        return ImageHeader(width: Int(info.width), height: Int(info.height), channels: Int(info.channels),
                           bitDepth: Int(info.bit_depth), workingBytes: Int(clamping: info.working_bytes))
    }

    func decode(_ bytes: UnsafeRawBufferPointer, origin: String) throws -> DecodedImage {
        var status = cic_status()
        var info = cic_image_info()
        var decoder: OpaquePointer?
        defer { close(decoder) }
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        if open(base, bytes.count, &decoder, &info, &status) != CIC_OK { throw error(status, origin) }

        let (width, height, channels) = (Int(info.width), Int(info.height), Int(info.channels))
        try ImageLimits.check(width: width, height: height, origin: origin)
        let count = width * height * channels
        // The C side writes every sample or fails; on failure the array is dropped unread.
        func fill(_ raw: UnsafeMutableRawBufferPointer) -> Bool {
            decodePixels(decoder, raw.baseAddress, raw.count, &status) == CIC_OK
        }
        let samples: DecodedImage.Samples
        switch info.bit_depth {
        case 8:
            samples = .uint8([UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                if fill(UnsafeMutableRawBufferPointer(buffer)) { initialized = count }
            })
        case 16:
            samples = .uint16([UInt16](unsafeUninitializedCapacity: count) { buffer, initialized in
                if fill(UnsafeMutableRawBufferPointer(buffer)) { initialized = count }
            })
        default:
            throw CloudError.badInput("\(origin): unsupported \(info.bit_depth)-bit \(name)")
        }
        if status.code != CIC_OK { throw error(status, origin) }
        return DecodedImage(width: width, height: height, channels: channels, samples: samples)
    }

    private func error(_ status: cic_status, _ origin: String) -> CloudError {
        .badInput("\(origin): cannot decode \(name): \(String(fixedCString: status.message))")
    }
}
