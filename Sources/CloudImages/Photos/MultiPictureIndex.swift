import CloudCore

/// The Multi-Picture Format index (CIPA DC-007) of a JPEG: the APP2 "MPF" segment of the first
/// image lists every image the file holds, each as a complete JPEG at an offset from that
/// segment's TIFF header (the first image, the primary, at offset 0 from the file's start). An
/// iPhone stores a portrait photo's disparity and matte this way.
public struct MultiPictureIndex: Sendable {
    /// Each image's bytes in the file, the primary first.
    public private(set) var images: [Range<Int>] = []

    /// A file with more than this many images is not a photo with its auxiliary images.
    static let maxImages = 64

    /// The index, or nil when the JPEG has no MPF segment. `origin` names the file in errors.
    public init?(_ bytes: [UInt8], segments: JPEGSegments, origin: String) throws {
        guard let payload = segments.application(2, signature: Array("MPF\u{0}".utf8), in: bytes).first else { return nil }
        let origin = "\(origin): MPF index"
        func bad(_ problem: String) -> CloudError { .badInput(.file(origin), "\(problem)") }
        let directory = try TIFFDirectory(bytes, in: payload, origin: origin)
        guard let entries = directory.entry(0xB002) else { throw bad("no MPEntry tag (0xB002)") }
        guard entries.count % 16 == 0, entries.count / 16 >= 1, entries.count / 16 <= UInt32(Self.maxImages) else {
            throw bad("MPEntry holds \(entries.count) bytes, not 16 for each of 1 to \(Self.maxImages) images")
        }
        let count = Int(entries.count / 16)
        if let stated = directory.integer(0xB001, in: bytes), stated != count {
            throw bad("NumberOfImages says \(stated) but MPEntry lists \(count)")
        }
        let table = try directory.data(of: entries, size: 16 * count, in: bytes, origin: origin)
        for i in 0..<count {
            let at = table.lowerBound + 16 * i
            let size = Int(directory.read32(bytes, at + 4))
            let offset = Int(directory.read32(bytes, at + 8))
            let start = i == 0 ? 0 : directory.base + offset
            guard i == 0 || offset > 0, size >= 4, start <= bytes.count, size <= bytes.count - start else {
                throw bad("image \(i + 1) of \(count) (\(size) bytes at offset \(offset)) lies outside the file's \(bytes.count) bytes")
            }
            guard bytes[start] == 0xFF, bytes[start + 1] == 0xD8 else {
                throw bad("image \(i + 1) of \(count) at byte \(start) does not start with a JPEG start-of-image marker")
            }
            images.append(start..<(start + size))
        }
        // The primary image runs up to the next image. Its recorded size cannot be trusted: the
        // iPhone X's portrait JPEG states 11,846 bytes fewer than its scan takes, its metadata
        // segments apparently not counted.
        let next = images.dropFirst().map(\.lowerBound).min() ?? bytes.count
        images[0] = 0..<max(images[0].upperBound, next)
    }
}

/// The EXIF orientation (tag 0x0112) of a JPEG, from its APP1 "Exif" segment: 1 (as stored) when
/// there is none or it says 0 (undefined).
public func exifOrientation(_ bytes: [UInt8], segments: JPEGSegments, origin: String) throws -> Int {
    guard let payload = segments.application(1, signature: Array("Exif\u{0}\u{0}".utf8), in: bytes).first else { return 1 }
    let directory = try TIFFDirectory(bytes, in: payload, origin: "\(origin): EXIF")
    guard let value = directory.integer(0x0112, in: bytes), value != 0 else { return 1 }
    guard (1...8).contains(value) else { throw CloudError.badInput(.file(origin), "EXIF orientation \(value) is not one of 1...8") }
    return Int(value)
}
