@testable import CloudCore

/// LZF decompression (PCLZF images, PCD binary_compressed) on its own: the input is a 4-byte
/// little-endian output size, then the compressed stream. Sizes LZF cannot reach are refused
/// first, as both callers do before reserving the output.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    guard bytes.count >= 4 else { return 0 }
    // At most 1 MiB of output keeps every run fast; the checks do not depend on the size.
    let outputCount = Int(UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self)) & 0xF_FFFF)
    let stream = UnsafeRawBufferPointer(rebasing: bytes[4...])
    guard LZF.canExpand(stream.count, to: outputCount) else { return 0 }
    let output = UnsafeMutableRawBufferPointer.allocate(byteCount: outputCount, alignment: 1)
    defer { output.deallocate() }
    FuzzContract.check(origin: "input.lzf") {
        try LZF.decompress(stream, into: output, origin: "input.lzf")
    }
    return 0
}
