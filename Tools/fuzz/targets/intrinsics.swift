import CloudCapture

/// Calibration files (`--intrinsics`, a Redwood folder's camera_intrinsic.json, a PCL grabber
/// frame's XML): Open3D JSON, cloudgen JSON and PCL grabber XML, read from a file as given on
/// the command line, then turned into intrinsics for a 640x480 depth image as the sources do.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let path = FuzzFolder.write(fuzzBytes(data, size), to: "intrinsics.json")
    FuzzContract.check(origin: path) {
        let file = try IntrinsicsFile.read(path)
        _ = try file.intrinsics(forDepthWidth: 640, height: 480)
    }
    return 0
}
