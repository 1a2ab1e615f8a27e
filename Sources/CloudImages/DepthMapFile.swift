import CloudCore
import Foundation
import SafeIO

/// A depth map in metres as it is in memory, for drawing it later: the 8 bytes `CGDEPTH1`, width
/// and height as little-endian UInt32, then width x height little-endian Float32. The service
/// keeps one per capture (`depth.f32`) so that its depth picture costs nothing until asked for.
public enum DepthMapFile {
    static let magic = Array("CGDEPTH1".utf8)

    public static func write(_ depth: DepthMap, to path: String) throws {
        var bytes = magic
        bytes.reserveCapacity(16 + 4 * depth.metres.count)
        for side in [depth.width, depth.height] {
            withUnsafeBytes(of: UInt32(side).littleEndian) { bytes += $0 }
        }
        depth.metres.withUnsafeBufferPointer { samples in
            // Float32's memory order is little-endian on every platform Swift runs cloudgen on.
            bytes += UnsafeRawBufferPointer(samples)
        }
        try AtomicFile.write(bytes: bytes, to: path)
    }

    public static func read(_ path: String) throws -> DepthMap {
        let file = try InputFile(path, role: "the depth map")
        let header = try file.read(at: 0, count: 16)
        guard header.count == 16, Array(header.prefix(8)) == magic else {
            throw CloudError.badInput(.file(path), "not a cloudgen depth map (no CGDEPTH1 header)")
        }
        func side(_ offset: Int) -> Int {
            Int(
                UInt32(header[offset]) | UInt32(header[offset + 1]) << 8 | UInt32(header[offset + 2]) << 16 | UInt32(header[offset + 3])
                    << 24)
        }
        let (width, height) = (side(8), side(12))
        try ImageLimits.check(width: width, height: height, origin: path)
        var metres = [Float](repeating: 0, count: width * height)
        let read = try metres.withUnsafeMutableBytes { try file.read(at: 16, into: $0) }
        guard read == 4 * width * height else {
            throw CloudError.badInput(.file(path), "\(width)x\(height) depth map holds \(read) of its \(4 * width * height) bytes")
        }
        return DepthMap(width: width, height: height, metres: metres)
    }
}
