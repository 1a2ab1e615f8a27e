import CImageCodecs
import CTestEncoders
import CloudCore
import CloudImages
import SafeIO

extension EXRDepthFile {
    /// Writes `samples` (width * height, row-major) as a one-channel EXR named `channel`, stored as
    /// half or float: the depth maps of fixtures in Record3D's layout.
    public static func write(_ samples: [Float], width: Int, height: Int, channel: String, half: Bool = false, to path: String) throws {
        try ImageLimits.check(width: width, height: height, origin: path)
        guard samples.count == width * height else {
            throw CloudError.badInput(.file(path), "a \(width)x\(height) depth map needs \(width * height) samples, got \(samples.count)")
        }
        var status = cic_status()
        _ = samples.withUnsafeBufferPointer {
            cic_exr_write(path, $0.baseAddress, UInt32(width), UInt32(height), channel, half ? 1 : 0, &status)
        }
        if let error = status.error(about: .file(path), doing: "cannot write EXR: ") { throw error }
    }
}
