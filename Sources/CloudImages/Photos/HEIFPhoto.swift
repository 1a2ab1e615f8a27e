import CImageCodecs
import CloudCore
import SafeIO

/// A HEIF photo (an iPhone's HEIC) with its depth image, read through libheif
/// (`cic_heif_open`): the primary image as RGB after the file's own rotation and mirroring, the
/// depth image and the portrait matte as 8-bit gray, and the depth image's XMP.
public struct HEIFPhoto: Sendable {
    /// What libheif reads from the depth item itself (ISO/IEC 23008-12's depth representation),
    /// beside the XMP: a second account of the range the 8-bit values map onto.
    public struct DepthRepresentation: Equatable, Sendable {
        /// 0 uniform inverse Z (disparity), 1 uniform disparity, 2 uniform Z, 3 nonuniform disparity.
        public var type: Int
        public var dMin: Double?
        public var dMax: Double?
    }

    public var color: DecodedImage
    public var depth: DecodedImage?
    public var depthXMP: [UInt8]?
    public var depthRepresentation: DepthRepresentation?
    /// Decoded only when asked for (`withMatte`); `hasMatte` says whether there is one.
    public var matte: DecodedImage?
    public var hasMatte: Bool

    /// Decodes `bytes`; `origin` names the file in errors.
    public init(_ bytes: [UInt8], withMatte: Bool, origin: String) throws {
        // libheif reads the file in place (`heif_context_read_from_memory_without_copy`) and
        // decodes from it until the context closes: every call stays inside this one borrow.
        self = try bytes.withUnsafeBufferPointer { try HEIFPhoto(reading: $0, withMatte: withMatte, origin: origin) }
    }

    private init(reading bytes: UnsafeBufferPointer<UInt8>, withMatte: Bool, origin: String) throws {
        var status = cic_status()
        var info = cic_heif_photo_info()
        var photo: OpaquePointer?
        defer { cic_heif_close(photo) }
        func failure(_ what: String) -> CloudError {
            status.failure(about: .file(origin), doing: what)
        }
        if cic_heif_open(bytes.baseAddress, bytes.count, &photo, &info, &status) != CIC_OK { throw failure("cannot read HEIF: ") }
        func decode(_ which: Int32, width: UInt32, height: UInt32, channels: Int, what: String) throws -> DecodedImage {
            let (w, h) = (Int(width), Int(height))
            try ImageLimits.check(width: w, height: h, origin: "\(origin): \(what)")
            let count = w * h * channels
            // libheif holds the decoded planes while they are copied out: twice the pixels.
            try MemoryBudget.require(2 * count, for: "its \(w)x\(h) \(what)", about: .file(origin))
            let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                if cic_heif_decode(photo, which, buffer.baseAddress, count, &status) == CIC_OK { initialized = count }
            }
            if status.code != CIC_OK { throw failure("cannot decode the \(what): ") }
            return DecodedImage(width: w, height: h, channels: channels, samples: .uint8(pixels))
        }
        color = try decode(Int32(CIC_HEIF_COLOR), width: info.width, height: info.height, channels: 3, what: "color image")
        hasMatte = info.has_matte != 0
        matte =
            withMatte && hasMatte
            ? try decode(Int32(CIC_HEIF_MATTE), width: info.matte_width, height: info.matte_height, channels: 1, what: "portrait matte")
            : nil
        guard info.has_depth != 0 else { return }
        depth = try decode(Int32(CIC_HEIF_DEPTH), width: info.depth_width, height: info.depth_height, channels: 1, what: "depth image")
        if info.has_representation != 0 {
            depthRepresentation = DepthRepresentation(
                type: Int(info.representation_type),
                dMin: info.has_d_min != 0 ? info.d_min : nil,
                dMax: info.has_d_max != 0 ? info.d_max : nil)
        }
        if info.depth_xmp_size > 0 {
            let size = info.depth_xmp_size
            let xmp = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
                if cic_heif_depth_xmp(photo, &info, buffer.baseAddress, size, &status) == CIC_OK { initialized = size }
            }
            if status.code != CIC_OK { throw failure("") }
            depthXMP = xmp
        }
    }
}
