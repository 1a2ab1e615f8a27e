/// PNG (libpng through CImageCodecs): every color type, bit depth and chunk layout libpng accepts.
/// The bytes go through ImageFile's format sniffing, as a file named on the command line does.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzImage(fuzzBytes(data, size), origin: "input.png")
    return 0
}
