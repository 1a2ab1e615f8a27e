import CImageCodecs
import CloudCore
import SafeIO

/// The frames of a video file's video stream (MP4 or QuickTime, HEVC or H.264), decoded in order
/// one at a time through FFmpeg (loaded on first use, `cvideo.h`): what a phone app's recording
/// (Stray Scanner's rgb.mp4) gives as color. Only the frame being handed out and the decoder's
/// reference frames are in memory, however long the video.
public final class VideoFrames {
    public let path: String
    public let width: Int
    public let height: Int
    /// The frames the file's index lists for the stream, when it says.
    public let declaredFrameCount: Int?
    /// "hevc", "h264".
    public let codec: String
    /// Frames handed out so far.
    public private(set) var delivered = 0

    private var decoder: OpaquePointer?

    /// `maxSide` bounds the frame size the file may declare (the fuzz target keeps it small).
    public init(path: String, maxSide: Int = ImageLimits.maxSide) throws {
        self.path = path
        var status = cic_status()
        var info = cic_video_info()
        var opened: OpaquePointer?
        if cic_video_open(path, UInt32(clamping: maxSide), &opened, &info, &status) != CIC_OK {
            cic_video_close(opened)
            throw Self.error(status, path)
        }
        decoder = opened
        width = Int(info.width)
        height = Int(info.height)
        declaredFrameCount = info.frame_count > 0 ? Int(clamping: info.frame_count) : nil
        codec = String(fixedCString: info.codec)
    }

    deinit {
        cic_video_close(decoder)
    }

    /// Bytes one frame's planes hold: full-size luma, half-size interleaved chroma.
    public var frameBytes: Int {
        width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
    }

    /// What the decoder itself holds while decoding, at most: HEVC and H.264 keep up to 16
    /// reference frames beside the one being decoded.
    public var decoderBytes: Int {
        17 * frameBytes
    }

    /// The next frame as YUV 4:2:0 bi-planar color at the video's size, or nil after the last.
    public func next() throws -> CapturedFrame.Color? {
        let lumaCount = width * height
        let chromaCount = 2 * ((width + 1) / 2) * ((height + 1) / 2)
        var status = cic_status()
        var frame = cic_video_frame()
        // The C side writes every byte of both planes or fails; on failure the arrays are dropped unread.
        var chroma: [UInt8] = []
        let luma = [UInt8](unsafeUninitializedCapacity: lumaCount) { lumaBuffer, lumaInitialized in
            chroma = [UInt8](unsafeUninitializedCapacity: chromaCount) { chromaBuffer, chromaInitialized in
                if cic_video_next(decoder, lumaBuffer.baseAddress, lumaCount, chromaBuffer.baseAddress, chromaCount, &frame, &status)
                    == CIC_OK,
                    frame.ended == 0
                {
                    chromaInitialized = chromaCount
                    lumaInitialized = lumaCount
                }
            }
        }
        if status.code != CIC_OK {
            throw Self.error(status, path, frame: delivered)
        }
        if frame.ended != 0 { return nil }
        delivered += 1
        let format = YUVFormat(range: frame.full_range != 0 ? .full : .video, matrix: frame.bt709 != 0 ? .bt709 : .bt601)
        return CapturedFrame.Color(width: width, height: height, layout: .yuv420BiPlanar(format), planes: [luma, chroma])
    }

    /// Bad input, except when FFmpeg could not do its work at all (not installed, memory exhausted):
    /// then an I/O error, exit 3.
    private static func error(_ status: cic_status, _ path: String, frame: Int? = nil) -> CloudError {
        let at = frame.map { " (frame \($0), counting from 0)" } ?? ""
        return status.failure(about: .file(path), doing: "cannot read the video\(at): ")
    }
}
