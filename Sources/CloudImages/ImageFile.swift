import CloudCore
import SafeIO

/// The image formats `ImageFile` reads, told apart by their first bytes, never by the extension,
/// which can be missing, vary (`.tif`, `.tiff`) or lie.
public enum ImageFormat: String, Sendable, CaseIterable {
    case png, jpeg, tiff
    /// Netpbm: binary PGM (P5) and PPM (P6) are read; the other kinds are recognised to be refused by name.
    case pnm
    /// PCL's LZF-compressed raw frames (`pcl::io::LZFImageWriter`).
    case pclzf

    /// The format whose signature `bytes` begin with, or nil.
    public static func sniff(_ bytes: UnsafeRawBufferPointer) -> ImageFormat? {
        func starts(with signature: [UInt8]) -> Bool {
            bytes.count >= signature.count && zip(bytes, signature).allSatisfy { $0 == $1 }
        }
        if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        // Classic TIFF (42) and BigTIFF (43), little- and big-endian.
        if starts(with: [0x49, 0x49, 0x2A, 0x00]) || starts(with: [0x4D, 0x4D, 0x00, 0x2A])
            || starts(with: [0x49, 0x49, 0x2B, 0x00]) || starts(with: [0x4D, 0x4D, 0x00, 0x2B])
        {
            return .tiff
        }
        if starts(with: Array("PCLZF".utf8)) { return .pclzf }
        // "P1" ... "P7" followed by whitespace.
        if bytes.count >= 3, bytes[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(bytes[1]),
            PNMImage.isWhitespace(bytes[2])
        {
            return .pnm
        }
        return nil
    }
}

/// Reads images from files or memory into `DecodedImage`s, with the format sniffed from the data.
///
/// Every failure is `CloudError.badInput("<origin>: <what is wrong>")` on one line: a missing file or
/// a folder, an unknown format, corrupt or truncated data, a size beyond `ImageLimits`
/// (checked before any pixel buffer is allocated), a bit depth or channel layout not read here.
/// A file the system cannot read (permissions, I/O errors) is `CloudError.io` (see `InputFile`).
public enum ImageFile {
    /// No image this module accepts needs more: the largest raster `ImageLimits` allows (4 channels
    /// of 16 bits) plus headers and compression overhead. A larger file is refused before it is read.
    public static let maxFileBytes = ImageLimits.maxSide * ImageLimits.maxSide * 8 + (1 << 20)

    /// Reads and decodes the image file at `path`.
    public static func read(_ path: String) throws -> DecodedImage {
        let bytes = try InputFile.readAll(path, limit: maxFileBytes)
        return try bytes.withUnsafeBytes { try decode($0, origin: path) }
    }

    /// Decodes an encoded image held in memory; `origin` names it in error messages.
    public static func decode(_ bytes: [UInt8], origin: String) throws -> DecodedImage {
        try bytes.withUnsafeBytes { try decode($0, origin: origin) }
    }

    /// What an encoded image held in memory will decode to, from its header alone (checked as
    /// `decode` checks it): what a caller needs to know before committing memory to the pixels.
    public static func header(_ bytes: [UInt8], origin: String) throws -> ImageHeader {
        try bytes.withUnsafeBytes { bytes in
            switch try format(bytes, origin: origin) {
            case .png: return try LibraryDecoder.png.header(bytes, origin: origin)
            case .jpeg: return try LibraryDecoder.jpeg.header(bytes, origin: origin)
            case .tiff: return try LibraryDecoder.tiff.header(bytes, origin: origin)
            case .pnm: return try PNMImage.header(bytes, origin: origin).image
            case .pclzf: return try PCLZFImage.header(bytes, origin: origin).image
            }
        }
    }

    /// Decodes an encoded image held in memory; `origin` names it in error messages.
    public static func decode(_ bytes: UnsafeRawBufferPointer, origin: String) throws -> DecodedImage {
        switch try format(bytes, origin: origin) {
        case .png: return try LibraryDecoder.png.decode(bytes, origin: origin)
        case .jpeg: return try LibraryDecoder.jpeg.decode(bytes, origin: origin)
        case .tiff: return try LibraryDecoder.tiff.decode(bytes, origin: origin)
        case .pnm: return try PNMImage.decode(bytes, origin: origin)
        case .pclzf: return try PCLZFImage.decode(bytes, origin: origin)
        }
    }

    private static func format(_ bytes: UnsafeRawBufferPointer, origin: String) throws -> ImageFormat {
        guard !bytes.isEmpty else { throw CloudError.badInput(.file(origin), "the file is empty") }
        guard let format = ImageFormat.sniff(bytes) else {
            throw CloudError.badInput(
                .file(origin), "not an image format cloudgen reads (PNG, JPEG, TIFF, PGM/PPM, PCLZF); it starts with \(hexPrefix(bytes))")
        }
        return format
    }

    private static func hexPrefix(_ bytes: UnsafeRawBufferPointer) -> String {
        let digits = Array("0123456789abcdef")
        return bytes.prefix(8).map { String([digits[Int($0 >> 4)], digits[Int($0 & 15)]]) }.joined(separator: " ")
    }
}

/// An image's size and sample layout as its header states them, before decoding.
public struct ImageHeader: Equatable, Sendable {
    public var width: Int
    public var height: Int
    public var channels: Int
    /// 8 or 16.
    public var bitDepth: Int
    /// Memory the decoder needs beside the decoded samples (a progressive JPEG's coefficients,
    /// a planar PCLZF image's raw planes).
    public var workingBytes: Int

    public init(width: Int, height: Int, channels: Int, bitDepth: Int, workingBytes: Int = 0) {
        self.width = width
        self.height = height
        self.channels = channels
        self.bitDepth = bitDepth
        self.workingBytes = workingBytes
    }

    /// The decoded samples' size: what `ImageFile.decode` allocates, plus its working memory.
    public var decodedBytes: Int { width * height * channels * bitDepth / 8 + workingBytes }
}
