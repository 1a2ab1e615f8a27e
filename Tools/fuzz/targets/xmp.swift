import CloudImages

@testable import CloudCapture

/// Apple's depth XMP as a photo carries it: the RDF/XML parsed by expat (XMPPacket), then read as
/// the depthData and apdi properties (AppleDepthMetadata: ranges, intrinsics, lens tables).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let origin = "fuzz.xmp"
    FuzzContract.check(origin: origin) {
        let packet = try XMPPacket(Array(fuzzBytes(data, size)), origin: origin)
        let metadata = try AppleDepthMetadata(packet, origin: origin)
        if let lens = metadata.distortion, !(lens.inverseLookupTable + lens.lookupTable).allSatisfy({ $0.isFinite && $0 > -1 }) {
            FuzzContract.fail("a lens table that folds the image")
        }
    }
    return 0
}
