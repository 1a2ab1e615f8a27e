import CloudCapture

/// Open3D / Redwood trajectory logs (a redwood: folder's trajectory.log), read from a file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let path = FuzzFolder.write(fuzzBytes(data, size), to: "trajectory.log")
    FuzzContract.check(origin: path) {
        _ = try TrajectoryLog.read(path)
    }
    return 0
}
