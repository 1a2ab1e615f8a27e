import CloudCore
import CloudImages

/// EXR depth maps (OpenEXR's core library through CImageCodecs, dlopen'ed): the header, then the R
/// channel as Record3D's depth, converted to metres as a frame's depth plane is.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = [UInt8](fuzzBytes(data, size))
    let origin = "depth.exr"
    FuzzContract.check(origin: origin) {
        let header = try EXRDepthFile.header(bytes, channel: "R", origin: origin)
        // A header may claim up to 16384 x 16384 (the source counts that against its memory budget
        // first); the fuzzer decodes what a fraction of a second allows.
        guard header.width * header.height <= 1 << 22 else { return }
        let decoded = try EXRDepthFile.decode(bytes, channel: "R", origin: origin)
        if decoded.header != header { FuzzContract.fail("decoding found another header than reading it did") }
        _ = try decoded.samples.withUnsafeBytes {
            try DepthMap(raw: $0, width: header.width, height: header.height, encoding: .depthFloat32, origin: origin)
        }
    }
    return 0
}
