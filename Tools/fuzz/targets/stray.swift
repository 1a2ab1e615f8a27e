import CloudCore

@testable import CloudCapture

/// A Stray Scanner export's index files and older depth frames: camera_matrix.csv (its intrinsics
/// at a 320x240 video, scaled to a 256x192 depth map as the source does), odometry.csv (each
/// pose must stay a rotation) and a depth .npy (the plane must hold exactly its samples). The
/// input's NUL bytes cut it into the three; a part that is missing is the whole input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    let parts = bytes.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false)
    func part(_ index: Int) -> [UInt8] {
        Array(parts.count > index ? parts[index] : bytes[...])
    }
    FuzzContract.check(origin: "camera_matrix.csv") {
        let k = try StrayCameraMatrix.parse(part(0), origin: "camera_matrix.csv", width: 320, height: 240)
        try k.scaled(toWidth: 256, height: 192).validate(origin: "camera_matrix.csv")
    }
    FuzzContract.check(origin: "odometry.csv") {
        for entry in try StrayOdometry(part(1), origin: "odometry.csv").entries where !entry.pose.isRigid() {
            FuzzContract.fail("an odometry pose that is not a rotation")
        }
    }
    FuzzContract.check(origin: "000000.npy") {
        let depth = try NPYDepth.plane(part(2), origin: "000000.npy", unitsPerMetre: 1000)
        if depth.data.count != depth.width * depth.height * 2 { FuzzContract.fail("a depth plane of the wrong size") }
    }
    return 0
}
