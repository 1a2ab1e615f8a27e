import CImageCodecs
import CloudCore
import SafeIO

/// Depth maps stored as OpenEXR, as Record3D's "EXR + JPG" export writes them: one channel of
/// float (or half) metres per pixel. Read through OpenEXR's C core library, which is loaded on the
/// first EXR (`exr_library.h`); only scanline files of one part are read. Like `ImageFile`, the
/// header comes first, so that the caller can count the decoded map against its memory budget
/// before any pixel buffer exists.
public enum EXRDepthFile {
    /// An EXR's header, as far as reading its depth channel goes.
    public struct Header: Equatable, Sendable {
        public var width: Int
        public var height: Int
        /// How the channel is stored: 16 (half) or 32 (float); it is decoded to float either way.
        public var storedBits: Int
        /// The library's buffers while decoding, beside the decoded floats.
        public var workingBytes: Int

        /// What decoding allocates: a float per pixel and the library's buffers.
        public var decodedBytes: Int { width * height * 4 + workingBytes }
    }

    /// The header of the EXR in `bytes`, whose channel `channel` holds the depth.
    public static func header(_ bytes: [UInt8], channel: String, origin: String) throws -> Header {
        try withOpened(bytes, channel: channel, origin: origin) { _, header in header }
    }

    /// The channel `channel` of the EXR in `bytes`, row-major; samples are as stored (NaN, infinity
    /// and zero included: `DepthMap` makes them "no depth").
    public static func decode(_ bytes: [UInt8], channel: String, origin: String) throws -> (header: Header, samples: [Float]) {
        try withOpened(bytes, channel: channel, origin: origin) { decoder, header in
            var status = cic_status()
            let count = header.width * header.height
            let samples = [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
                // The C side writes every sample or fails; on failure the array is dropped unread.
                if cic_exr_decode(decoder, buffer.baseAddress, count, &status) == CIC_OK { initialized = count }
            }
            if status.code != CIC_OK { throw error(status, origin) }
            return (header, samples)
        }
    }

    private static func withOpened<T>(
        _ bytes: [UInt8], channel: String, origin: String,
        _ body: (OpaquePointer?, Header) throws -> T
    ) throws -> T {
        try bytes.withUnsafeBufferPointer { buffer in
            var status = cic_status()
            var info = cic_image_info()
            var decoder: OpaquePointer?
            defer { cic_exr_close(decoder) }
            if cic_exr_open(buffer.baseAddress, buffer.count, channel, Int32(ImageLimits.maxSide), &decoder, &info, &status) != CIC_OK {
                throw error(status, origin)
            }
            let header = Header(
                width: Int(info.width), height: Int(info.height), storedBits: Int(info.bit_depth),
                workingBytes: Int(clamping: info.working_bytes))
            try ImageLimits.check(width: header.width, height: header.height, origin: origin)
            return try body(decoder, header)
        }
    }

    /// Bad input, except when the library could not do its work at all (OpenEXR missing, memory
    /// exhausted): then an I/O error, exit 3.
    private static func error(_ status: cic_status, _ origin: String) -> CloudError {
        status.failure(about: .file(origin), doing: "cannot read EXR: ")
    }
}
