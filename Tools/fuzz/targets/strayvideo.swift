import CloudCore
import CloudImages

/// A Stray Scanner export's rgb.mp4 through FFmpeg (`VideoFrames`): opened, then decoded frame by
/// frame to its end. Frames are bounded to 256 pixels a side and 16 frames, so that each input
/// stays fast; the bounds themselves are what the source relies on too.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let path = FuzzFolder.write(fuzzBytes(data, size), to: "rgb.mp4")
    FuzzContract.check(origin: path) {
        let video = try VideoFrames(path: path, maxSide: 256)
        var count = 0
        while count < 16, let frame = try video.next() {
            if frame.width != video.width || frame.height != video.height || frame.planes[0].count != video.width * video.height {
                FuzzContract.fail("a frame of another size than the video declares")
            }
            count += 1
        }
    }
    return 0
}
