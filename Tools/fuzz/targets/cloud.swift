import CloudFiles

/// PLY and PCD clouds (CloudFiles' own parser: every encoding, the header and the body), from
/// memory as the service will read uploads. The name only tells the reader which format to
/// expect when the bytes do not say.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    let path = bytes.starts(with: "ply".utf8) ? "input.ply" : "input.pcd"
    FuzzContract.check(origin: path) {
        _ = try CloudReader.read(bytes: bytes, path: path)
    }
    return 0
}
