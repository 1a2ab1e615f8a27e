import CloudCore
import Foundation

/// One message of a stream's live socket (`GET /v1/streams/{id}/live`), unpacked: the header, the
/// kept points' positions and colors, and when asked for the frame's JET-colored depth PNG and
/// its color image.
public struct LiveMessage: Sendable, Equatable {
    public var header: LiveHeader
    /// x y z steps of `header.scale` metres from `header.origin`, three per point.
    public var positions: [Int16]
    /// r g b, three per point.
    public var colors: [UInt8]
    public var depthPNG: Data?
    /// JPEG or PNG, as `header.color.encoding` says.
    public var colorImage: Data?

    /// More points than any budget a viewer may ask for: a header claiming more is lying.
    public static let maxPoints = 1 << 24

    public init(header: LiveHeader, positions: [Int16], colors: [UInt8], depthPNG: Data?, colorImage: Data?) {
        self.header = header
        self.positions = positions
        self.colors = colors
        self.depthPNG = depthPNG
        self.colorImage = colorImage
    }

    /// Point `j`'s position in metres.
    public func position(_ j: Int) -> SIMD3<Float> {
        let o = header.origin
        return SIMD3(o[0], o[1], o[2])
            + header.scale * SIMD3(Float(positions[3 * j]), Float(positions[3 * j + 1]), Float(positions[3 * j + 2]))
    }

    /// A message as the server sent it; `origin` names the socket in errors.
    public static func decode(_ message: Data, origin: String) throws -> LiveMessage {
        let (header, payloads) = try StreamMessage.decode(message, origin: origin, as: LiveHeader.self) { header in
            guard (0...maxPoints).contains(header.points) else {
                throw CloudError.badInput("\(origin): frame \(header.frame) claims \(header.points) points (0...\(maxPoints))")
            }
            guard header.event != nil || header.origin.count == 3 else {
                throw CloudError.badInput("\(origin): frame \(header.frame) has an origin of \(header.origin.count) numbers, not 3")
            }
            return header.payloadSizes
        }
        guard header.event == nil else { return LiveMessage(header: header, positions: [], colors: [], depthPNG: nil, colorImage: nil) }
        var positions = [Int16](repeating: 0, count: 3 * header.points)
        positions.withUnsafeMutableBytes { $0.copyBytes(from: payloads[0]) }
        #if _endian(big)
        for i in positions.indices { positions[i] = Int16(littleEndian: positions[i]) }
        #endif
        // The pictures follow the points, depth first, each only when the header announces it.
        var pictures = payloads.dropFirst(2).makeIterator()
        let depthPNG = header.depth.flatMap { _ in pictures.next().map { Data($0) } }
        let colorImage = header.color.flatMap { _ in pictures.next().map { Data($0) } }
        return LiveMessage(header: header, positions: positions, colors: [UInt8](payloads[1]), depthPNG: depthPNG, colorImage: colorImage)
    }
}
