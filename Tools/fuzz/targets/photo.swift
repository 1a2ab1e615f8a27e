import CloudCapture

/// `photo:FILE` whole, from a file: JPEG through its MPF index and libjpeg, HEIC through libheif,
/// Apple's XMP through expat, then the disparity mapping, orientation and calibration.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let path = FuzzFolder.write(fuzzBytes(data, size), to: "photo.jpg")
    FuzzContract.check(origin: path) {
        let source = try PhotoSource(path: path)
        guard let frame = try source.nextFrame() else { FuzzContract.fail("a photo without its frame") }
        if frame.depth.data.count != 4 * frame.depth.width * frame.depth.height { FuzzContract.fail("a depth plane of the wrong size") }
    }
    return 0
}
