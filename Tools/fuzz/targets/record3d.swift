import CloudCore

@testable import CloudCapture

/// A Record3D export's metadata.json: K at the color images' size, scaled to a 256x192 depth map
/// as a frame is, and the OpenGL-axes poses turned into cloudgen's, which must stay rotations.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let path = FuzzFolder.write(fuzzBytes(data, size), to: "metadata.json")
    FuzzContract.check(origin: path) {
        let metadata = try Record3DMetadata(path: path)
        try metadata.intrinsics.scaled(toWidth: 256, height: 192).validate(origin: path)
        if metadata.poses.isEmpty { FuzzContract.fail("metadata without poses") }
        if !metadata.poses.allSatisfy({ $0.isRigid() }) { FuzzContract.fail("a pose that is not a rotation") }
    }
    return 0
}
