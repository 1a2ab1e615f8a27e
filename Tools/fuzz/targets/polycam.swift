import CloudCore

@testable import CloudCapture

/// A Polycam keyframe's camera file (keyframes/cameras/NAME.json): intrinsics at the image's
/// size, scaled to a 256x192 depth map as the source does, and the ARKit pose turned into
/// cloudgen's axes, which must stay a rotation.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let path = FuzzFolder.write(fuzzBytes(data, size), to: "camera.json")
    FuzzContract.check(origin: path) {
        let camera = try PolycamCamera(path: path)
        try camera.intrinsics.scaled(toWidth: 256, height: 192).validate(origin: path)
        if !camera.pose.isRigid() { FuzzContract.fail("a pose that is not a rotation") }
    }
    return 0
}
