import CloudCore
import CloudImages
import SafeIO

/// A photo with depth as its file stores it, before any turn: the color image, the 8-bit depth
/// image with Apple's description of it, the portrait matte when asked for, and the EXIF
/// orientation. Two containers hold them:
/// - HEIC: the depth image is the primary image's depth item (libheif), with its own XMP. libheif
///   turns the color image by the file's rotation properties itself, which HEIF says take the place
///   of EXIF orientation, so the orientation here is 1.
/// - JPEG: the depth and matte images are further JPEGs in the file, listed by its Multi-Picture
///   Format index, each with its own XMP saying what it is (AppleAuxiliaryImage); the semantic
///   segmentation mattes and gain maps beside them are passed over.
struct DepthPhoto {
    var container: String
    var color: ColorImage
    var depth: DecodedImage
    var metadata: AppleDepthMetadata
    var hasMatte: Bool
    var matte: DecodedImage?
    var orientation: PhotoOrientation
    /// HEIC only: the depth range libheif reads from the depth item, beside the XMP's.
    var heifRepresentation: HEIFPhoto.DepthRepresentation?

    /// Photos are a few megabytes; a file this large is not one.
    static let maxFileSize = 512 << 20

    static func read(_ path: String, withMatte: Bool) throws -> DepthPhoto {
        let bytes = try InputFile.readAll(path, role: "a photo with depth", limit: maxFileSize)
        if bytes.starts(with: [0xFF, 0xD8]) { return try jpeg(bytes, withMatte: withMatte, origin: path) }
        // ISO BMFF: a size, then 'ftyp'.
        if bytes.count >= 12, bytes[4..<8].elementsEqual("ftyp".utf8) { return try heic(bytes, withMatte: withMatte, origin: path) }
        throw CloudError.badInput(
            .file(path), "not a JPEG or HEIC photo (it starts \(bytes.prefix(8).map { String($0, radix: 16) }.joined(separator: " ")))")
    }

    private static func heic(_ bytes: [UInt8], withMatte: Bool, origin: String) throws -> DepthPhoto {
        let photo = try HEIFPhoto(bytes, withMatte: withMatte, origin: origin)
        guard let depth = photo.depth else { throw CloudError.badInput(.file(origin), "the photo has no depth image") }
        guard let xmp = photo.depthXMP else {
            throw CloudError.badInput(.file(origin), "the depth image has no XMP, so its range and calibration are unknown")
        }
        let metadata = try AppleDepthMetadata(XMPPacket(xmp, origin: "\(origin): depth XMP"), origin: origin)
        return DepthPhoto(
            container: "HEIC", color: try photo.color.colorImage(origin: origin), depth: depth, metadata: metadata,
            hasMatte: photo.hasMatte, matte: photo.matte, orientation: PhotoOrientation(1),
            heifRepresentation: photo.depthRepresentation)
    }

    private static func jpeg(_ bytes: [UInt8], withMatte: Bool, origin: String) throws -> DepthPhoto {
        let segments = try JPEGSegments(bytes, origin: origin)
        guard let index = try MultiPictureIndex(bytes, segments: segments, origin: origin), index.images.count > 1 else {
            throw CloudError.badInput(.file(origin), "the JPEG holds no depth image (no Multi-Picture Format index listing one)")
        }
        var depth: (image: Range<Int>, metadata: AppleDepthMetadata)?
        var matte: Range<Int>?
        for (i, image) in index.images.enumerated().dropFirst() {
            let what = "\(origin): MPF image \(i + 1)"
            guard let xmp = try JPEGSegments(bytes, start: image.lowerBound, origin: what).xmp(in: bytes) else { continue }
            let packet = try XMPPacket(xmp, origin: "\(what) XMP")
            switch AppleAuxiliaryImage(packet) {
            case .portraitEffectsMatte?: matte = matte ?? image
            case .depth? where depth == nil: depth = (image, try AppleDepthMetadata(packet, origin: what))
            default: break
            }
        }
        guard let depth else {
            throw CloudError.badInput(.file(origin), "none of the JPEG's \(index.images.count - 1) further images is a depth image")
        }
        func gray(_ range: Range<Int>, _ what: String) throws -> DecodedImage {
            let image = try bytes[range].withUnsafeBytes { try ImageFile.decode($0, origin: "\(origin): \(what)") }
            guard image.channels == 1, image.bitDepth == 8 else {
                throw CloudError.badInput(.file(origin), "the \(what) is \(image.channels)-channel \(image.bitDepth)-bit, not 8-bit gray")
            }
            return image
        }
        let primary = try bytes[index.images[0]].withUnsafeBytes { try ImageFile.decode($0, origin: origin) }
        return DepthPhoto(
            container: "JPEG", color: try primary.colorImage(origin: origin), depth: try gray(depth.image, "depth image"),
            metadata: depth.metadata, hasMatte: matte != nil,
            matte: try withMatte ? matte.map { try gray($0, "portrait matte") } : nil,
            orientation: PhotoOrientation(try exifOrientation(bytes, segments: segments, origin: origin)),
            heifRepresentation: nil)
    }
}
