@testable import CloudCapture

/// The capture bundle's own JPEG marker walk (JPEGHeader, which finds a color frame's size when a
/// bundle is opened, before libjpeg sees the file), on a file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let path = FuzzFolder.write(fuzzBytes(data, size), to: "color.jpg")
    FuzzContract.check(origin: path) {
        let size = try JPEGHeader.dimensions(of: path)
        if size.width <= 0 || size.height <= 0 { FuzzContract.fail("JPEGHeader accepted a size of \(size)") }
    }
    return 0
}
