import CloudCore
import CloudStream
import Foundation

/// One frame a client pushes to a stream, as the server's push socket reads it: the framing, the
/// header's encodings, sizes and pose, the depth in each codec and the JPEG color. Whatever the
/// message says, a bad one is one line of bad input naming the message or its frame, and a frame
/// read is exactly the size its header gives.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let message = Data(fuzzBytes(data, size))
    let intrinsics = CameraIntrinsics(fx: 30, fy: 30, cx: 20, cy: 15, referenceWidth: 40, referenceHeight: 30)
    // Pre-header errors name the origin, "push frame"; later ones "frame N".
    FuzzContract.check(origin: "frame") {
        let (frame, header, _) = try PushFrame.decode(
            message, intrinsics: { _, _ in intrinsics }, depthUnitsPerMetre: 1000, origin: "push frame")
        let d = frame.depth
        if d.width != header.depth.width || d.height != header.depth.height || d.data.count != 2 * d.width * d.height {
            FuzzContract.fail("a \(d.width)x\(d.height) depth of \(d.data.count) bytes for a header of \(header.depth)")
        }
    }
    return 0
}
