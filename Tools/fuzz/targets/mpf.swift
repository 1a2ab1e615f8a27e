import CloudImages

/// A portrait JPEG's structure before any decoding: its marker segments, the Multi-Picture Format
/// index that places the depth and matte images, and the EXIF orientation.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let origin = "fuzz.jpg"
    let bytes = Array(fuzzBytes(data, size))
    FuzzContract.check(origin: origin) {
        let segments = try JPEGSegments(bytes, origin: origin)
        _ = try exifOrientation(bytes, segments: segments, origin: origin)
        guard let index = try MultiPictureIndex(bytes, segments: segments, origin: origin) else { return }
        for image in index.images where image.lowerBound < 0 || image.upperBound > bytes.count || image.isEmpty {
            FuzzContract.fail("an image range \(image) outside the \(bytes.count) bytes")
        }
    }
    return 0
}
