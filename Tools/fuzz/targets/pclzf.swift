/// PCL's PCLZF frames (CloudImages' header checks, LZF decompression, planar RGB and YUV422 layouts).
/// The bytes go through ImageFile's format sniffing, as a file named on the command line does.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzImage(fuzzBytes(data, size), origin: "input.pclzf")
    return 0
}
