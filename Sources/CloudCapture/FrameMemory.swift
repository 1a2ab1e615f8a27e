import CloudCore
import SafeIO

/// What capturing one frame costs in memory, estimated before any of its buffers exists, so that a
/// frame too large for the process is refused (exit 2, with the figure) instead of aborting
/// halfway. Every source family calls `require` once it knows the frame's sizes and before it
/// reads or renders pixels.
///
/// The capture path holds, per depth pixel, at its peak (the first frame is kept for the report):
/// the raw depth plane as the source delivered it (2 or 4 bytes), the depth in metres (Float32,
/// 4), the color sampled at that pixel (3), and back-projection's position (3 Float32, 12) and
/// color (3) of its point: `perDepthPixel` beside the raw plane. Measured with `/usr/bin/time` on
/// `capture --source synthetic:depth=2048x2048 --ply`: 23 bytes per depth pixel over the
/// 256x192 baseline, against 24 counted here. Color costs what the source's planes hold (RGB
/// 3 bytes per pixel, YUV 4:2:0 1.5), and a decoding source adds what decoding holds at once:
/// the encoded files and the decoded samples before they become the raw plane.
///
/// Not counted: filters, which run on the cloud afterwards (`--normals` adds about 230 bytes per
/// point, `--sor` about 70, `--voxel` about 55).
enum FrameMemory {
    static let perDepthPixel = 22
    /// The process itself (runtime, libraries, the preview's buffers), beyond what was mapped when
    /// the budget was read.
    static let margin = 64 << 20

    /// Bytes one frame needs: `depth` pixels delivered `rawBytesPerSample` each, `colorBytes` of
    /// color planes, `decodingBytes` held only while decoding.
    static func estimate(depth: ImageSize, rawBytesPerSample: Int, colorBytes: Int, decodingBytes: Int = 0) -> Int {
        depth.width * depth.height * (rawBytesPerSample + perDepthPixel) + colorBytes + decodingBytes + margin
    }

    /// Refuses a frame whose estimate does not fit `MemoryBudget.current()` (and, under a
    /// `MemoryClaim`, its share and the ledger); the message names `subject` and the frame's size.
    static func require(
        depth: ImageSize, rawBytesPerSample: Int, colorBytes: Int, decodingBytes: Int = 0,
        color: ImageSize?, about subject: CloudError.Subject
    ) throws {
        let bytes = estimate(depth: depth, rawBytesPerSample: rawBytesPerSample, colorBytes: colorBytes, decodingBytes: decodingBytes)
        let what = "a \(depth) depth frame" + (color.map { " with \($0) color" } ?? "")
        // The margin is the process's, not the frame's: no request's share pays for it.
        try MemoryBudget.require(bytes - margin, for: what, about: subject, margin: margin)
    }
}
