/// Netpbm PGM/PPM (CloudImages' own header parser and raster reader).
/// The bytes go through ImageFile's format sniffing, as a file named on the command line does.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzImage(fuzzBytes(data, size), origin: "input.pnm")
    return 0
}
